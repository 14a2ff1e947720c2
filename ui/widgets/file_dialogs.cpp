#include "widgets/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

namespace trainio::ui {

namespace {

FileDialogHook& hook() {
    static FileDialogHook h;
    return h;
}

QString key(const QString& purpose) { return QStringLiteral("dialogs/") + purpose; }

} // namespace

QString trainioDataFolder() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)).filePath(QCoreApplication::applicationName());
}

QString trainioDataPath(const QString& sub) {
    const QString path = QDir(trainioDataFolder()).filePath(sub);
    const QString earlier = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(sub); // <org>/<app>
    return !QFileInfo::exists(path) && QFileInfo::exists(earlier) ? earlier : path;
}

QString dialogStart(const QString& purpose, const QString& fallback) {
    const QString last = QSettings().value(key(purpose)).toString();
    return !last.isEmpty() && QFileInfo(last).isDir() ? last : fallback;
}

void rememberDialogFolder(const QString& purpose, const QString& chosen) {
    if (chosen.isEmpty()) return;
    const QFileInfo info(chosen);
    QSettings().setValue(key(purpose), info.isDir() ? info.absoluteFilePath() : info.absolutePath());
}

QString saveFileName(QWidget* parent, const QString& purpose, const QString& caption, const QString& suggestedName,
                     const QString& filter, const QString& defaultSuffix) {
    const QString start = QFileInfo(suggestedName).isAbsolute() ? suggestedName : QDir(dialogStart(purpose, QDir::homePath())).filePath(suggestedName);
    QString chosen = hook() ? hook()(caption, start)
                            : QFileDialog::getSaveFileName(parent, caption, start, filter, nullptr, QFileDialog::DontConfirmOverwrite);
    if (!chosen.isEmpty() && !defaultSuffix.isEmpty() && QFileInfo(chosen).suffix().isEmpty()) chosen += QLatin1Char('.') + defaultSuffix;
    if (!chosen.isEmpty() && !hook() && QFileInfo::exists(chosen)) {
        QMessageBox box(QMessageBox::Question, caption, QObject::tr("%1 already exists. Replace it?").arg(QFileInfo(chosen).fileName()),
                        QMessageBox::NoButton, parent);
        box.setObjectName(QStringLiteral("replaceQuestion"));
        QPushButton* replace = box.addButton(QObject::tr("Replace"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(replace); // what the user chose by saving
        box.exec();
        if (box.clickedButton() != replace) return {};
    }
    rememberDialogFolder(purpose, chosen);
    return chosen;
}

QString openFileName(QWidget* parent, const QString& purpose, const QString& caption, const QString& fallbackDir,
                     const QString& filter) {
    const QString start = dialogStart(purpose, fallbackDir);
    const QString chosen = hook() ? hook()(caption, start) : QFileDialog::getOpenFileName(parent, caption, start, filter);
    rememberDialogFolder(purpose, chosen);
    return chosen;
}

QString existingFolder(QWidget* parent, const QString& purpose, const QString& caption, const QString& fallbackDir) {
    const QString start = dialogStart(purpose, fallbackDir);
    const QString chosen = hook() ? hook()(caption, start) : QFileDialog::getExistingDirectory(parent, caption, start);
    // A folder chosen is remembered as itself; the next dialog starts in it.
    rememberDialogFolder(purpose, chosen);
    return chosen;
}

void setFileDialogHook(FileDialogHook h) { hook() = std::move(h); }

} // namespace trainio::ui
