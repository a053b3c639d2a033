// Whole files as text, and the JSON files below a folder: the one file
// reading the tests that compare with files on disk share.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace reshaper::test {

// The bytes of `path`; empty when it cannot be opened.
inline std::string file_text(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every regular *.json file below `dir`, sorted; none when `dir` does not exist.
inline std::vector<std::filesystem::path> json_files_below(const std::filesystem::path &dir) {
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::exists(dir)) return files;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace reshaper::test
