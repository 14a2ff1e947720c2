#include "widgets/notification_panel.h"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace trainio::ui {

NotificationPanel::NotificationPanel(QWidget* parent) : QWidget(parent), list_(new QListWidget(this)) {
    setObjectName(QStringLiteral("notifications"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    list_->setWordWrap(true);
    list_->setAlternatingRowColors(true);
    layout->addWidget(list_);
    auto* row = new QHBoxLayout;
    row->addStretch();
    auto* clearButton = new QPushButton(tr("Clear"), this);
    row->addWidget(clearButton);
    layout->addLayout(row);
    connect(clearButton, &QPushButton::clicked, this, &NotificationPanel::clear);
}

int NotificationPanel::count(Severity severity) const {
    int n = 0;
    for (const Entry& e : entries_) n += e.severity == severity;
    return n;
}

void NotificationPanel::post(Severity severity, const QString& text) {
    entries_.append(Entry{severity, text, QDateTime::currentDateTime()});
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    if (severity == Severity::Warning) icon = QStyle::SP_MessageBoxWarning;
    if (severity == Severity::Error) icon = QStyle::SP_MessageBoxCritical;
    auto* item = new QListWidgetItem(style()->standardIcon(icon),
                                     QStringLiteral("%1  %2").arg(entries_.last().time.toString(QStringLiteral("HH:mm:ss")), text));
    item->setToolTip(text);
    list_->addItem(item);
    list_->scrollToBottom();
    emit posted(severity, text);
}

void NotificationPanel::clear() {
    entries_.clear();
    list_->clear();
}

} // namespace trainio::ui
