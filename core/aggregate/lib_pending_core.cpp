// TEMPORARY (branch lib): weak stand-ins for functions the importer side defines, so that the library,
// compare and their tests link before that work is merged. The real (strong) definitions win at link
// time; delete this file once main has them.
#include "aggregate/identity.h"

namespace trainio::aggregate {

__attribute__((weak)) std::string statusName(InvocationStatus s) {
    switch (s) {
    case InvocationStatus::Complete: return "complete";
    case InvocationStatus::Incomplete: return "incomplete";
    case InvocationStatus::Cancelled: return "cancelled";
    case InvocationStatus::Failed: return "failed";
    }
    return "unknown";
}

// "" lets compare() fall back to naming both workload titles.
__attribute__((weak)) std::string whyNotComparable(const std::string&, const std::string&) { return {}; }

} // namespace trainio::aggregate
