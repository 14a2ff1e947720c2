// Where the application tells the user what happened: import problems, bad configuration files,
// finished or failed runs. A non-modal list (never a blocking dialog), so that messages pile up instead
// of interrupting a run, and so that tests can read what the user would have read.
#pragma once

#include <QDateTime>
#include <QString>
#include <QWidget>

class QListWidget;

namespace trainio::ui {

class NotificationPanel final : public QWidget {
    Q_OBJECT
public:
    enum class Severity { Info, Warning, Error };
    Q_ENUM(Severity)

    struct Entry {
        Severity severity;
        QString text;
        QDateTime time;
    };

    explicit NotificationPanel(QWidget* parent = nullptr);

    const QList<Entry>& entries() const { return entries_; }
    int count(Severity severity) const;

public slots:
    void post(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    void clear();

signals:
    void posted(trainio::ui::NotificationPanel::Severity severity, const QString& text);

private:
    QListWidget* list_;
    QList<Entry> entries_;
};

using Severity = NotificationPanel::Severity;

} // namespace trainio::ui
