#include "cli_args.h"

#include "util/errors.h"

#include <cctype>

namespace trainio::cli {

std::optional<std::string> ParsedArgs::value(const std::string& opt) const {
    auto it = values.find(opt);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::optional<unsigned long long> ParsedArgs::unsignedValue(const std::string& opt, unsigned long long min,
                                                            unsigned long long max) const {
    auto v = value(opt);
    if (!v) return std::nullopt;
    const std::string range = "expected a whole number " + std::to_string(min) + " … " + std::to_string(max);
    bool digits = !v->empty();
    for (char c : *v) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) throw InputError(opt + " = '" + *v + "': " + range);
    unsigned long long n = 0;
    try {
        n = std::stoull(*v);
    } catch (const std::exception&) {
        throw InputError(opt + " = '" + *v + "': " + range);
    }
    if (n < min || n > max) throw InputError(opt + " = " + *v + ": " + range);
    return n;
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const OptionSpec& spec) {
    ParsedArgs out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("++", 0) == 0 || (a.rfind("workload.", 0) == 0 && a.find('=') != std::string::npos)) {
            if (!spec.overrides) throw InputError("unexpected override '" + a + "': this command takes none");
            out.overrides.push_back(a);
            continue;
        }
        if (a.rfind("--", 0) == 0 && a.size() > 2) {
            std::string name = a, val;
            bool inlineValue = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                val = a.substr(eq + 1);
                inlineValue = true;
            }
            if (spec.flags.count(name)) {
                if (inlineValue) throw InputError("option " + name + " takes no value (got '" + val + "')");
                out.flags.insert(name);
            } else if (spec.valued.count(name)) {
                if (!inlineValue) {
                    if (i + 1 >= args.size()) throw InputError("option " + name + " needs a value");
                    val = args[++i];
                }
                out.values[name].push_back(val);
            } else {
                throw InputError("unknown option '" + name + "' (see --help)");
            }
            continue;
        }
        if (!spec.positionals) throw InputError("unexpected argument '" + a + "' (see --help)");
        out.positionals.push_back(a);
    }
    return out;
}

aggregate::Labels labelsFrom(const ParsedArgs& p) {
    aggregate::Labels l;
    auto text = [&](const char* opt, std::string& out) {
        const auto v = p.value(opt);
        if (!v) return;
        if (v->empty() || v->find_first_not_of(" \t") == std::string::npos)
            throw InputError(std::string(opt) + " = '': expected a non-empty name");
        for (unsigned char c : *v)
            if (c < 0x20 || c == 0x7f) throw InputError(std::string(opt) + " = '" + *v + "': control characters are not allowed");
        out = *v;
    };
    text("--system", l.system);
    text("--description", l.description);
    return l;
}

} // namespace trainio::cli
