// `trainio --screenshot DIR [RESULTS...]`: drives the real window through a short session — a tiny
// dataset generated and benchmarked in a temporary folder, the given results trees imported, a few
// benchmarks checked and compared — and saves each page with QWidget::grab() for the user guide.
// Driven by signals (no nested event loops); emits finished() when every picture is written.
#pragma once

#include "config/workload_config.h"

#include <QObject>
#include <QStringList>
#include <QTemporaryDir>

class QWidget;

namespace trainio::ui {

class MainWindow;

class ScreenshotTour final : public QObject {
    Q_OBJECT
public:
    ScreenshotTour(MainWindow* window, QString outputDir, QStringList resultsFolders, QObject* parent = nullptr);
    void start();
    int exitCode() const { return exitCode_; }

signals:
    void finished(int exitCode);

private:
    void showInvalidFields();
    void generate();
    void benchmark();
    void mpiDemo();
    void sweepDemo();
    void storageDemo(int profileIndex);
    void presentationDemo();
    void loaderDemo();
    void loaderRun();
    void checkpointDemo();
    void preflight();
    void moreBenchmarks(int index);
    void failedRun();
    void cancelledRun();
    void importResults();
    void compare();
    void quickStartAndHelp();
    void collocationDemo();
    void save(const QString& name);
    void saveWidget(QWidget* widget, const QString& name);
    void fail(const QString& why);

    MainWindow* window_;
    QString outputDir_;
    QStringList resultsFolders_;
    QTemporaryDir temp_;
    QString benchmarkDir_;
    WorkloadConfig demoConfig_; // the tour's workload, restored after the storage pictures
    int exitCode_ = 0;
};

} // namespace trainio::ui
