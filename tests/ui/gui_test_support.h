// Shared helpers of the GUI suites: settings kept in a temporary folder (never the user's), and a tiny
// workload whose dataset is generated in a temporary folder.
#pragma once

#include "config/config_loader.h"

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace uitest {

inline void isolateSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TrainIO-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("TrainIO-tests"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings().clear();
}

// npz, `files` files of 64 KiB, batch 2, `epochs` epochs, `compute` s per step, data in dataDir.
inline trainio::WorkloadConfig tinyWorkload(const QString& dataDir, std::uint64_t files = 16, std::uint64_t epochs = 2,
                                            double compute = 0.002) {
    trainio::WorkloadConfig cfg = trainio::loadPreset("demo").config;
    cfg.dataset.dataFolder = dataDir.toStdString();
    cfg.dataset.format = trainio::DataFormat::Npz;
    cfg.dataset.numFilesTrain = files;
    cfg.dataset.numSamplesPerFile = 1;
    cfg.dataset.recordLength = 64 * 1024;
    cfg.dataset.recordLengthStdev = 0;
    cfg.reader.batchSize = 2;
    cfg.reader.readThreads = 1;
    cfg.train.epochs = epochs;
    cfg.train.computationTime = trainio::ComputeTime{};
    cfg.train.computationTime.mean = compute;
    return cfg;
}

} // namespace uitest
