#include "widgets/help_window.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace trainio::ui {

namespace {

const QString kDocsRoot = QStringLiteral(":/docs/");

QString resourcePath(const QUrl& url) { return QLatin1Char(':') + url.path(); }

// The first "# " line of a Markdown document, else its file name.
QString titleOf(const QString& fileName) {
    QFile f(kDocsRoot + fileName);
    if (f.open(QIODevice::ReadOnly))
        while (!f.atEnd()) {
            const QString line = QString::fromUtf8(f.readLine()).trimmed();
            if (line.startsWith(QLatin1String("# "))) return line.mid(2);
        }
    return fileName;
}

} // namespace

DocBrowser::DocBrowser(QWidget* parent) : QTextBrowser(parent) {
    setObjectName(QStringLiteral("docBrowser"));
    setOpenLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) { follow(url); });
}

QVariant DocBrowser::loadResource(int type, const QUrl& name) {
    if (type == QTextDocument::ImageResource) {
        const QUrl url = source().resolved(name);
        QImage image(url.scheme() == QLatin1String("qrc") ? resourcePath(url) : url.toLocalFile());
        if (image.isNull()) return QTextBrowser::loadResource(type, name);
        // Screenshots are 1440 px wide: fit them to the page, never wider than they are.
        const int width = std::max(200, viewport()->width() - 40);
        if (image.width() > width) image = image.scaledToWidth(width, Qt::SmoothTransformation);
        return image;
    }
    return QTextBrowser::loadResource(type, name);
}

bool DocBrowser::follow(const QUrl& link) {
    const QString scheme = link.scheme();
    if (scheme == QLatin1String("http") || scheme == QLatin1String("https") || scheme == QLatin1String("mailto")) {
        QDesktopServices::openUrl(link);
        return true;
    }
    if (link.path().isEmpty() && link.hasFragment()) {
        scrollToAnchor(link.fragment());
        return true;
    }
    const QUrl target = source().resolved(link);
    if (target.scheme() == QLatin1String("qrc") && QFile::exists(resourcePath(target))) {
        const bool markdown = target.path().endsWith(QLatin1String(".md"));
        setSource(target, markdown ? QTextDocument::MarkdownResource : QTextDocument::UnknownResource);
        problem_.clear();
        emit problemChanged(problem_);
        return true;
    }
    problem_ = tr("%1 is not part of the bundled documentation (it is in the source tree or on the web).")
                   .arg(link.toString());
    emit problemChanged(problem_);
    return false;
}

HelpWindow::HelpWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
    setObjectName(QStringLiteral("helpWindow"));
    setWindowTitle(tr("TrainIO documentation"));
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QToolBar(this);
    browser_ = new DocBrowser(this);
    bar->addAction(style()->standardIcon(QStyle::SP_ArrowBack), tr("Back"), browser_, &QTextBrowser::backward);
    bar->addAction(style()->standardIcon(QStyle::SP_ArrowForward), tr("Forward"), browser_, &QTextBrowser::forward);
    bar->addAction(style()->standardIcon(QStyle::SP_DirHomeIcon), tr("User guide"), this,
                   [this] { showDocument(QStringLiteral("user-guide.md")); });
    layout->addWidget(bar);
    auto* splitter = new QSplitter(this);
    contents_ = new QListWidget(splitter);
    contents_->setObjectName(QStringLiteral("helpContents"));
    for (const QString& doc : bundledDocuments()) {
        auto* item = new QListWidgetItem(titleOf(doc), contents_);
        item->setData(Qt::UserRole, doc);
        item->setToolTip(doc);
    }
    splitter->addWidget(contents_);
    splitter->addWidget(browser_);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({270, 830});
    layout->addWidget(splitter, 1);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("helpStatus"));
    layout->addWidget(status_);
    connect(browser_, &DocBrowser::problemChanged, status_, &QLabel::setText);
    connect(contents_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { showDocument(item->data(Qt::UserRole).toString()); });
    connect(contents_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { showDocument(item->data(Qt::UserRole).toString()); });
    resize(1100, 800);
    showDocument(QStringLiteral("user-guide.md"));
}

QStringList HelpWindow::bundledDocuments() {
    QStringList docs = QDir(kDocsRoot).entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    if (docs.removeAll(QStringLiteral("user-guide.md")) > 0) docs.prepend(QStringLiteral("user-guide.md"));
    return docs;
}

QUrl HelpWindow::urlOf(const QString& fileName) { return QUrl(QStringLiteral("qrc:/docs/") + fileName); }

bool HelpWindow::showDocument(const QString& fileName) {
    if (!QFile::exists(kDocsRoot + fileName)) {
        status_->setText(tr("%1 is not bundled with this build.").arg(fileName));
        return false;
    }
    browser_->setSource(urlOf(fileName), QTextDocument::MarkdownResource);
    for (int i = 0; i < contents_->count(); ++i)
        if (contents_->item(i)->data(Qt::UserRole).toString() == fileName) contents_->setCurrentRow(i);
    status_->clear();
    return true;
}

} // namespace trainio::ui
