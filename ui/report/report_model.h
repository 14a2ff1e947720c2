// The report's "Model prediction vs measurement" section (issue 13, docs/model.md): for each selected item
// whose runs recorded the input-pipeline model's prediction (trainio_model.json, runs on emulated storage),
// what the model predicted before the run beside what was measured — AU, samples/s, the limit it named and
// the largest passing accelerator count it predicted. Predictions of one item's runs are one workload at
// one setting, so their mean is meaningful; items are never merged.
#pragma once

#include "report/report_content.h"

namespace trainio::ui {

void modelPredictionSection(ReportPageFlow& flow, const ReportData& data);

} // namespace trainio::ui
