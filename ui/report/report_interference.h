// The report's "Interference" section (issue 23, docs/collocation.md, docs/report.md): for each collocation
// one of whose workloads is a report item — the workloads that ran at the same time on one storage — each
// workload's AU and Read GiB/s together against the same workload alone (the library's
// aggregate::collocationInterference: alone runs of the same benchmark identity, the collocation's own
// --alone ones first), the AU points lost and the slowdown with their 95 % CIs, who lost most, which alone
// runs were used (or why none could be), and one time axis for every workload's AU, the delivered MiB/s
// against the shared device's limit, and the client's telemetry. Everything from the in-memory library.
#pragma once

#include "report/report_content.h"

namespace trainio::ui {

void interferenceSection(ReportPageFlow& flow, const ReportData& data);

} // namespace trainio::ui
