// Core work for the window, off the GUI thread: start() runs a computation on Qt's global thread pool
// and hands its result to the GUI thread, but only the result of the newest start() — a generation
// counter drops every result overtaken by a later request (the idea of KDAB/hotspot's JobTracker). A
// computation overtaken before it began is never run. When the context object is gone (its window closed),
// the result is dropped too.
#pragma once

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <utility>

namespace trainio::ui {

class LatestJob {
public:
    // `context` lives in the GUI thread; results are delivered there while it exists.
    explicit LatestJob(QObject* context) : context_(context) {}

    // compute() runs on a worker thread (it must not touch widgets); deliver(result) on the GUI thread,
    // only when no later start() happened in between. Both are copied: capture by value.
    template <typename Compute, typename Deliver>
    void start(Compute compute, Deliver deliver) {
        const quint64 generation = ++*latest_;
        QThreadPool::globalInstance()->start([context = context_, latest = latest_, generation, compute, deliver] {
            if (latest->load() != generation) return; // overtaken while queued
            auto result = compute();
            // Posted to the application object, which outlives the pool; the context is checked on the GUI
            // thread, where it is deleted, so the check cannot race its destruction.
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [context, latest, generation, deliver, result = std::move(result)] {
                    if (!context || latest->load() != generation) return;
                    deliver(result);
                },
                Qt::QueuedConnection);
        });
    }

    // Drops whatever is under way: no result of an earlier start() is delivered after this.
    void invalidate() { ++*latest_; }

    quint64 generation() const { return latest_->load(); }

private:
    QPointer<QObject> context_;
    std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0);
};

} // namespace trainio::ui
