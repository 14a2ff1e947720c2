// A reusable, 4 KiB-aligned byte buffer (aligned so that O_DIRECT engines can use it). Grows, never
// shrinks, so the reader hot path allocates only while the largest sample is not yet seen.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace trainio {

class AlignedBuffer {
public:
    static constexpr std::size_t kAlignment = 4096;
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
        std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
        void* p = std::aligned_alloc(kAlignment, rounded);
        if (!p) throw std::bad_alloc();
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
