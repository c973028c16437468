// Helpers of test_export*.cpp: scratch folder, listing it, reading text and JSON back.
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace fs = std::filesystem;
using namespace alluvium;

namespace {

inline fs::path scratchDir() { return test::scratchDir("export"); }

inline std::set<std::string> listDir(const fs::path& dir) {
    const std::vector<std::string> names = test::listDir(dir);
    return {names.begin(), names.end()};
}

using test::expectInputError;

using test::readText;

inline nlohmann::json readJson(const fs::path& path) { return nlohmann::json::parse(readText(path)); }

} // namespace
