// The headers most of skb's units include, precompiled once per build (SKB_PCH) and reused by
// every target: parsing them was most of each unit's compile time. Nothing here may define a
// global object or instantiate code (CLI11 does both, so it is not here).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
