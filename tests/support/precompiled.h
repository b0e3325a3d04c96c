// The tests' precompiled header: what the programs' targets precompile, and GoogleTest.
#pragma once
#include <gtest/gtest.h>

#include "common/precompiled.h"
