// Presets show the MLPerf Storage round they belong to where they are chosen: the round read from each
// preset's trainio.mlperf_round (checked against the YAML read independently with yaml-cpp), the
// drop-down text "name — MLPerf Storage v3.0", the bare name kept as the item text (what loading uses),
// and a preset that cannot be loaded named in its tooltip.
#include "workload/preset_labels.h"
#include "workload/workload_page.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include "config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <QAbstractItemView>
#include <QComboBox>
#include <QFile>
#include <QTest>

using namespace trainio::ui;

class TestPresetLabels : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;

    static bool write(const QString& path, const QByteArray& text) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    }

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }

    void labels() {
        QCOMPARE(presetRoundLabel(QStringLiteral("v3.0")), QStringLiteral("MLPerf Storage v3.0"));
        QCOMPARE(presetItemText(QStringLiteral("unet3d_b200"), QStringLiteral("v3.0")), QStringLiteral("unet3d_b200 — MLPerf Storage v3.0"));
        QCOMPARE(presetItemText(QStringLiteral("demo"), QString()), QStringLiteral("demo"));
    }

    void shippedPresetsShowTheirRound() {
        QComboBox box;
        box.addItem(QStringLiteral("(choose a preset)"));
        for (const auto& n : trainio::presetNames()) box.addItem(QString::fromStdString(n));
        showPresetRounds(&box);
        auto* delegate = dynamic_cast<PresetRoundDelegate*>(box.itemDelegate());
        QVERIFY(delegate);
        int withRound = 0;
        for (int i = 1; i < box.count(); ++i) {
            const QString name = box.itemText(i);
            // The round as the preset file says it, read without TrainIO's loader.
            const YAML::Node y = YAML::LoadFile(QStringLiteral("%1/%2.yaml").arg(qEnvironmentVariable("TRAINIO_PRESET_DIR", TRAINIO_PRESET_DIR), name).toStdString());
            const QString round = y["trainio"] && y["trainio"]["mlperf_round"] ? QString::fromStdString(y["trainio"]["mlperf_round"].as<std::string>()) : QString();
            QCOMPARE(box.itemData(i, kPresetRoundRole).toString(), round);
            const QString shown = delegate->textFor(box.model()->index(i, 0));
            QCOMPARE(shown, round.isEmpty() ? name : name + QStringLiteral(" — MLPerf Storage ") + round);
            withRound += round.isEmpty() ? 0 : 1;
        }
        QCOMPARE(box.itemText(box.findText(QStringLiteral("llama3_8b"))), QStringLiteral("llama3_8b")); // the bare name stays
        QCOMPARE(box.itemData(box.findText(QStringLiteral("llama3_8b")), kPresetRoundRole).toString(), QStringLiteral("v3.0"));
        QVERIFY(withRound >= 4);
        QCOMPARE(box.itemText(0), QStringLiteral("(choose a preset)"));
        QVERIFY(box.itemData(0, kPresetRoundRole).isNull()); // not a preset: untouched
    }

    // Issue 21: the drop-down of the Workload page's preset box shows every entry whole: four
    // "retinanet…rage v3.0" (elided in the middle) could not be told apart.
    void dropDownShowsWholeNames() {
        WorkloadPage page;
        page.resize(900, 600);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto* box = page.findChild<QComboBox*>(QStringLiteral("presetBox"));
        QVERIFY(box);
        box->showPopup();
        QAbstractItemView* view = box->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), testsupport::kHangMs);
        const QFontMetrics fm(view->font());
        QStringList shown;
        for (int i = 1; i < box->count(); ++i) {
            const QModelIndex index = box->model()->index(i, 0);
            const QString text = PresetRoundDelegate::textFor(index);
            shown << text;
            const int room = view->visualRect(index).width();
            QVERIFY2(room >= fm.horizontalAdvance(text) + 8, qPrintable(QStringLiteral("\"%1\" needs %2 px, has %3")
                                                                          .arg(text).arg(fm.horizontalAdvance(text)).arg(room)));
        }
        QVERIFY(shown.contains(QStringLiteral("retinanet_b200 — MLPerf Storage v3.0")));
        QCOMPARE(shown.removeDuplicates(), 0);
        box->hidePopup();
    }

    void aBrokenPresetIsNamedInItsTooltip() {
        QTemporaryDir dir;
        QVERIFY(write(dir.filePath(QStringLiteral("mine.yaml")), "model:\n  name: mine\ntrainio:\n  mlperf_round: \"v2.0\"\n"));
        QVERIFY(write(dir.filePath(QStringLiteral("broken.yaml")), "model:\n  name: broken\ntrain:\n  epochs: -3\n"));
        const QByteArray before = qgetenv("TRAINIO_PRESET_DIR");
        qputenv("TRAINIO_PRESET_DIR", dir.path().toUtf8());
        QComboBox box;
        box.addItems({QStringLiteral("broken"), QStringLiteral("mine")});
        showPresetRounds(&box);
        qputenv("TRAINIO_PRESET_DIR", before);
        QCOMPARE(box.itemData(1, kPresetRoundRole).toString(), QStringLiteral("v2.0"));
        QCOMPARE(box.itemData(1, Qt::ToolTipRole).toString(), QStringLiteral("mine: MLPerf Storage v2.0"));
        const QString tip = box.itemData(0, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("broken")) && tip.contains(QStringLiteral("train.epochs")), qPrintable(tip));
        QVERIFY(box.itemData(0, kPresetRoundRole).isNull());
    }
};

QTEST_MAIN(TestPresetLabels)
#include "tst_preset_labels.moc"
