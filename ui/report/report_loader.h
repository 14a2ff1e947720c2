// The report's "Loader policies" section (issue 13, docs/loader.md): where the selected items hold runs of
// one workload that differ only in the loader's keys (trainio.loader, ram_tier_mib, staging_mib, ssd_tier)
// and at least two policies, a side-by-side table and bars of those items, from the importer's fields
// (InvocationRecord::loaderPolicy, epochHitRatio, …). Never across workloads.
#pragma once

#include "report/report_content.h"

#include <vector>

namespace trainio::ui {

void loaderPoliciesSection(ReportPageFlow& flow, const ReportData& data);

// The mean of the finite values of v from index `from` on; NaN when there is none.
double meanFrom(const std::vector<double>& v, std::size_t from = 0);

} // namespace trainio::ui
