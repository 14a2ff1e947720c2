// Fuzzes the workload config loader: DLIO YAML or JSON text, plus Hydra-style overrides (the lines
// after a "==> overrides <==" line). Bad input must end in InputError (exit code 2 in the CLI); any
// other exception, a crash or a sanitizer report is a bug. A config that loads must also serialise
// the way the result writer does (config.yaml, overrides.yaml).
#include "config/config_loader.h"
#include "util/errors.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view marker = "==> overrides <==\n";
    const std::size_t at = in.find(marker);
    const std::string text(in.substr(0, at));
    std::vector<std::string> overrides;
    if (at != std::string_view::npos) {
        std::string_view rest = in.substr(at + marker.size());
        while (!rest.empty() && overrides.size() < 64) {
            const std::size_t nl = rest.find('\n');
            overrides.emplace_back(rest.substr(0, nl));
            rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        }
    }
    try {
        const trainio::LoadedConfig lc = trainio::loadWorkloadConfigFromString(text, "fuzz.yaml", overrides);
        (void)trainio::toYaml(lc.config);
        // Not toJson(): no product code calls it, and it throws on strings that are not valid UTF-8,
        // which the loader accepts (crash-invalid-utf8-model-name; docs/reliability.md).
        (void)trainio::overridesYaml(lc.config);
        (void)trainio::validateConfig(lc.config);
        (void)trainio::sizingAdvice(lc.config, 1 + size % 8, 64.0 * 1024 * 1024 * 1024);
    } catch (const trainio::InputError&) {
    }
    return 0;
}
