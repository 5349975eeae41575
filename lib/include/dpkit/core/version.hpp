// dpkit/core/version.hpp — what was built, for `dpkit --version` and JSON output contexts.
#pragma once

#include <string_view>

namespace dpkit {

std::string_view version() noexcept;     ///< semantic version, e.g. "0.1.0"
std::string_view git_hash() noexcept;    ///< short commit hash at build time ("-dirty" if modified)
std::string_view build_type() noexcept;  ///< CMake build type, e.g. "Release"
std::string_view compiler() noexcept;    ///< e.g. "GNU 12.2.0"

}  // namespace dpkit
