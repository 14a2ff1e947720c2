// TFRecord framing and the tf.train.Example DLIO writes (data_generator/tf_generator.py):
//   record = uint64 length LE | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
//   data   = Example{features{feature{"image": bytes_list{d1*d2 bytes}}, feature{"size": int64_list{d}}}}
// The protobuf wire format is encoded by hand (a few tags and varints) so that core needs no protobuf
// dependency; the image bytes sit between a fixed prefix and suffix, so they can be streamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace trainio {

constexpr std::size_t kTfRecordHeaderBytes = 12; // length + masked CRC of the length
constexpr std::size_t kTfRecordFooterBytes = 4;  // masked CRC of the data

struct TfExampleLayout {
    std::string prefix;          // serialized Example bytes before the image bytes
    std::string suffix;          // … after them (the "size" feature)
    std::uint64_t imageBytes = 0;
    std::uint64_t dataLength() const { return prefix.size() + imageBytes + suffix.size(); }
    std::uint64_t framedLength() const { return kTfRecordHeaderBytes + dataLength() + kTfRecordFooterBytes; }
};

TfExampleLayout tfExampleLayout(std::uint64_t imageBytes, std::int64_t sizeValue);

// The 12-byte record header for a data length.
void encodeTfRecordHeader(std::uint64_t dataLength, unsigned char out[kTfRecordHeaderBytes]);

// Finds the "image" bytes feature in a serialized Example. Returns "" and sets imageBytes, or what is
// wrong. Unknown fields are skipped as protobuf parsers do; no allocation.
const char* parseTfExampleImage(const unsigned char* data, std::size_t len, std::uint64_t& imageBytes);

} // namespace trainio
