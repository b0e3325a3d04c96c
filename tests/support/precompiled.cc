// The unit that builds the tests' precompiled header (tests/support/precompiled.h).
