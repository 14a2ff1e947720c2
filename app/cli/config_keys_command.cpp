#include "config_keys_command.h"

#include "cli_args.h"

#include "config/config_keys.h"
#include "util/errors.h"

#include <cstdio>

namespace trainio::cli {

int runConfigKeysCommand(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs("Usage: trainio-cli config-keys [--format markdown|json]\n"
                       "Prints every workload configuration key: path, DLIO 1.0 name, type, DLIO's default,\n"
                       "accepted range or values, unit and meaning (docs/configuration.md is its markdown).\n",
                       stdout);
            return 0;
        }
    const ParsedArgs p = parseArgs(args, OptionSpec{{"--format"}, {}, false, false});
    const std::string format = p.value("--format").value_or("markdown");
    if (format == "markdown") {
        std::fputs(config_keys::markdown().c_str(), stdout);
    } else if (format == "json") {
        std::printf("%s\n", config_keys::json().dump(2).c_str());
    } else {
        throw InputError("--format " + format + ": expected markdown or json");
    }
    return 0;
}

} // namespace trainio::cli
