// Errors are values the caller can show: what (file, key or path), the value found and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace trainio {

// Bad input: a config, an argument, an unreadable or malformed input file. CLI exit code 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A run that failed at run time: I/O error, disk full, permission denied while running. CLI exit code 1.
class RunError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Builds "<where>: <key> = <value>: expected <expected>" with the empty parts left out.
std::string describeProblem(const std::string& where, const std::string& key, const std::string& value,
                            const std::string& expected);

// strerror(errno) for the given errno value, thread-safe.
std::string errnoText(int err);

} // namespace trainio
