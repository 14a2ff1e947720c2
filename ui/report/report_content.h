// What goes on the report's pages, in order: title page with provenance, systems, the groups at a
// glance and the units/rules legend; the comparison figures per workload; one section per group.
#pragma once

#include "aggregate/group_aggregate.h"
#include "aggregate/invocation_record.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <vector>

namespace trainio::ui {

class ReportPageFlow;

struct ReportData {
    QString title;
    QDateTime generated;
    QStringList roots;                                 // the folders the user asked for
    aggregate::ImportResult imported;
    std::vector<std::size_t> groups;                   // selected groups (indices into imported.groups), report order
    std::vector<aggregate::GroupAggregate> aggregates; // aggregateGroup() of each, same order
};

// Numbers as every table of the report prints them: fixed `precision` decimals, "n/a" when undefined.
QString formatNumber(double value, int precision = 2);
// "value ± half width" of the 95 % CI, or just the value when the CI is undefined (fewer than 2 runs).
QString formatWithCi(double value, double halfWidth, int precision = 2);
// "<model>_<accelerator>", as MLPerf Storage names a workload.
QString workloadName(const aggregate::WorkloadIdentity& identity);

QString hostDescription();
QString osDescription();

void composeReport(ReportPageFlow& flow, const ReportData& data);

} // namespace trainio::ui
