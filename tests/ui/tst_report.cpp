// moc sees /usr/include/c++/12 here (QCustomPlot's include directory is /usr/include) and cannot parse
// <compare>, which the core headers use; moc needs none of them.
#ifndef Q_MOC_RUN
#include "report/report_writer.h"
#endif
#include "testsupport.h"
#include <QApplication>
class TestReport : public QObject {
    Q_OBJECT
private slots:
    void smoke() {
        trainio::ui::ReportRequest r;
        r.paths = {testsupport::fixtures() / "mlperf-storage-v1.0/Closed/Micron"};
        QString err;
        QVERIFY2(trainio::ui::writeReportPdf(r, "/tmp/report-smoke.pdf", &err), qPrintable(err));
    }
};
QTEST_MAIN(TestReport)
#include "tst_report.moc"
