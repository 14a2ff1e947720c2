// The Workload page's Semantics choice offers MLPerf Storage v3.0's DLIO beside v1 and v2, and what
// is picked is what the page hands to a run (WorkloadPage::semantics()).
#include "workload/workload_page.h"
#include "testsupport.h"

#include <QComboBox>
#include <QTest>

using namespace trainio;
using namespace trainio::ui;

class TestSemanticsChoice : public QObject {
    Q_OBJECT
private slots:
    void offersV1V2AndV3() {
        WorkloadPage page;
        QComboBox* combo = nullptr;
        for (auto* c : page.findChildren<QComboBox*>())
            if (c->findData(static_cast<int>(MetricSemantics::DlioV1)) >= 0 &&
                c->findData(static_cast<int>(MetricSemantics::DlioV3)) >= 0)
                combo = c;
        QVERIFY2(combo, "a combo offering v1 and v3");
        QCOMPARE(combo->count(), 3);
        QCOMPARE(page.semantics(), MetricSemantics::DlioV2); // the default, as on the command line
        combo->setCurrentIndex(combo->findData(static_cast<int>(MetricSemantics::DlioV3)));
        QCOMPARE(page.semantics(), MetricSemantics::DlioV3);
        QVERIFY(combo->currentText().contains(QStringLiteral("v3")));
        combo->setCurrentIndex(combo->findData(static_cast<int>(MetricSemantics::DlioV1)));
        QCOMPARE(page.semantics(), MetricSemantics::DlioV1);
    }
};

QTEST_MAIN(TestSemanticsChoice)
#include "tst_semantics_choice.moc"
