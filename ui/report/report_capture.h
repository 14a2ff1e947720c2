// The report's "Real job vs replay" section (issue 24, docs/capture.md): for each selected item whose runs
// replay a workload derived from a captured training job (trainio-cli workload --from-trace; the runs'
// configuration carries trainio.captured_job), the job's own AU and samples/s (from its step marks) beside
// the replay's (the mean over the item's complete runs that replay that job), with the differences. Items
// are never merged.
#pragma once

#include "report/report_content.h"

namespace trainio::ui {

void capturedJobSection(ReportPageFlow& flow, const ReportData& data);

} // namespace trainio::ui
