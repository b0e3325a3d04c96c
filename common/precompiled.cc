// The unit that builds the precompiled header (common/precompiled.h) the other targets reuse.
