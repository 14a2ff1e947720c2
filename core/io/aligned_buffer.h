// A reusable, 4 KiB-aligned byte buffer (aligned so that O_DIRECT engines can use it). Grows, never
// shrinks, so the reader hot path allocates only while the largest sample is not yet seen.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <sys/mman.h>

namespace trainio {

class AlignedBuffer {
public:
    static constexpr std::size_t kAlignment = 4096;
    // Buffers from this size up are 2 MiB-aligned, rounded to 2 MiB and asked to be backed by
    // transparent huge pages: an O_DIRECT or io_uring transfer into physically contiguous memory is a
    // few scatter-gather segments instead of one per 4 KiB page, which doubled O_DIRECT read throughput
    // on a virtio disk (docs/io-engines.md). Costs at most 2 MiB per buffer.
    static constexpr std::size_t kHugeFrom = 256 * 1024;
    static constexpr std::size_t kHugePage = 2 * 1024 * 1024;
    AlignedBuffer() = default;
    explicit AlignedBuffer(std::size_t bytes) { reserve(bytes); }
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    AlignedBuffer(AlignedBuffer&& o) noexcept : data_(o.data_), capacity_(o.capacity_) {
        o.data_ = nullptr;
        o.capacity_ = 0;
    }
    AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
        if (this != &o) {
            std::free(data_);
            data_ = o.data_;
            capacity_ = o.capacity_;
            o.data_ = nullptr;
            o.capacity_ = 0;
        }
        return *this;
    }
    ~AlignedBuffer() { std::free(data_); }

    void reserve(std::size_t bytes) {
        if (bytes <= capacity_) return;
        const std::size_t align = bytes >= kHugeFrom ? kHugePage : kAlignment;
        std::size_t rounded = (bytes + align - 1) / align * align;
        void* p = std::aligned_alloc(align, rounded);
        if (!p) throw std::bad_alloc();
        if (align == kHugePage) ::madvise(p, rounded, MADV_HUGEPAGE); // advice only: THP may be off
        std::free(data_);
        data_ = static_cast<unsigned char*>(p);
        capacity_ = rounded;
    }
    unsigned char* data() { return data_; }
    const unsigned char* data() const { return data_; }
    std::size_t capacity() const { return capacity_; }

private:
    unsigned char* data_ = nullptr;
    std::size_t capacity_ = 0;
};

} // namespace trainio
