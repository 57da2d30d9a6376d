#include "floe/format/parquet/level_assembly_internal.h"

#include <cstring>
#include <limits>
#include <utility>

namespace floe::parquet::internal {

namespace {

class Assembler {
 public:
  Assembler(const FileSchema& schema, const std::vector<LeafBatch*>& batches, MemoryPool* pool)
      : schema_(schema), batches_(batches), pool_(pool) {}

  Result<ArrayPtr> Assemble(const ReadNode& node) {
    switch (node.kind) {
      case ReadNode::Kind::kLeaf:
        return AssembleLeaf(node);
      case ReadNode::Kind::kStruct:
        return AssembleStruct(node);
      case ReadNode::Kind::kList:
      case ReadNode::Kind::kMap:
        return AssembleList(node);
    }
    return Status::Internal("unknown node kind");
  }

 private:
  struct Levels {
    const LeafBatch* b;
    int16_t max_def;
    int16_t def(int64_t i) const { return b->def_materialized ? b->def[i] : max_def; }
    int16_t rep(int64_t i) const { return b->rep.empty() ? 0 : b->rep[i]; }
  };
  Levels LevelsOf(int leaf) const { return Levels{batches_[leaf], schema_.leaves[leaf].max_def}; }

  // Validity of the slots of `node`: slots are entries with def >= slot_def and
  // rep <= slot_rep; a slot is valid when def >= def_level.
  Result<std::pair<BufferPtr, int64_t>> Validity(const ReadNode& node, int64_t* num_slots) {
    Levels lv = LevelsOf(node.first_leaf);
    const int64_t n = lv.b->num_levels;
    int64_t slots = 0;
    bool any_null = false;
    for (int64_t i = 0; i < n; ++i) {
      if (lv.rep(i) <= node.slot_rep && lv.def(i) >= node.slot_def) {
        ++slots;
        any_null |= lv.def(i) < node.def_level;
      }
    }
    *num_slots = slots;
    if (!any_null) return std::make_pair(BufferPtr(), int64_t{0});
    FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
    int64_t s = 0;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (lv.rep(i) <= node.slot_rep && lv.def(i) >= node.slot_def) {
        if (lv.def(i) >= node.def_level) {
          bit_util::SetBit(bits->mutable_data(), s);
        } else {
          ++nulls;
        }
        ++s;
      }
    }
    return std::make_pair(BufferPtr(std::move(bits)), nulls);
  }

  Result<ArrayPtr> AssembleStruct(const ReadNode& node) {
    int64_t slots;
    FLOE_ASSIGN_OR_RAISE(auto validity, Validity(node, &slots));
    std::vector<ArrayPtr> children;
    for (const ReadNode& c : node.children) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, Assemble(c));
      if (child->length() != slots) {
        return Status::Corrupt("column '{}': field '{}' has {} values, the struct has {}",
                               node.field.name(), c.field.name(), child->length(), slots);
      }
      children.push_back(std::move(child));
    }
    return Array::Make(node.field.type(), slots, {validity.first}, std::move(children),
                       validity.second);
  }

  Result<ArrayPtr> AssembleList(const ReadNode& node) {
    Levels lv = LevelsOf(node.first_leaf);
    const int64_t n = lv.b->num_levels;
    BufferBuilder offsets(pool_);
    BufferBuilder bits(pool_);
    int64_t slots = 0;
    int64_t nulls = 0;
    int32_t elems = 0;
    FLOE_RETURN_NOT_OK(offsets.Reserve(4));
    for (int64_t i = 0; i < n; ++i) {
      int16_t d = lv.def(i);
      int16_t r = lv.rep(i);
      if (r <= node.slot_rep) {
        if (d < node.slot_def) continue;
        FLOE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(elems));
        if (bit_util::BytesForBits(slots + 1) > bits.size()) {
          FLOE_RETURN_NOT_OK(bits.AppendValue<uint8_t>(0));
        }
        if (d >= node.def_level) {
          bit_util::SetBit(bits.mutable_data(), slots);
        } else {
          ++nulls;
        }
        ++slots;
        if (d >= node.elem_def) ++elems;
      } else if (r == node.elem_rep && d >= node.elem_def) {
        if (elems == std::numeric_limits<int32_t>::max()) {
          return Status::NotSupported("column '{}': a batch holds more than 2^31 list elements",
                                      node.field.name());
        }
        ++elems;
      }
    }
    FLOE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(elems));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr child, Assemble(node.children[0]));
    if (child->length() != elems) {
      return Status::Corrupt("column '{}': levels give {} list elements, the element has {}",
                             node.field.name(), elems, child->length());
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr off, offsets.Finish());
    BufferPtr validity;
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(validity, bits.Finish());
    }
    return Array::Make(node.field.type(), slots, {validity, off}, {child}, nulls);
  }

  Result<ArrayPtr> AssembleLeaf(const ReadNode& node) {
    const LeafInfo& leaf = schema_.leaves[node.leaf];
    LeafBatch* b = batches_[node.leaf];
    Levels lv = LevelsOf(node.leaf);
    const int64_t n = b->num_levels;
    const bool all_slots = node.slot_def == 0 && leaf.max_rep == 0;
    int64_t slots = all_slots ? n : 0;
    if (!all_slots) {
      for (int64_t i = 0; i < n; ++i) slots += lv.def(i) >= node.slot_def;
    }
    const int64_t nulls = slots - b->num_values;
    if (nulls < 0) return Status::Internal("leaf '{}' has more values than slots", leaf.path);
    BufferPtr validity;
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
      int64_t s = 0;
      for (int64_t i = 0; i < n; ++i) {
        int16_t d = lv.def(i);
        if (d < node.slot_def) continue;
        if (d == leaf.max_def) bit_util::SetBit(bits->mutable_data(), s);
        ++s;
      }
      validity = std::move(bits);
    }
    const uint8_t* valid = validity ? validity->data() : nullptr;
    BufferPtr values;
    if (leaf.out_width < 0) {
      if (b->offsets.size() == 0) FLOE_RETURN_NOT_OK(b->offsets.AppendValue<int32_t>(0));
      FLOE_ASSIGN_OR_RAISE(BufferPtr dense, b->offsets.Finish());
      FLOE_ASSIGN_OR_RAISE(BufferPtr data, b->data.Finish());
      BufferPtr offsets = dense;
      if (nulls > 0) {
        FLOE_ASSIGN_OR_RAISE(auto spread, Buffer::AllocateZeroed((slots + 1) * 4, pool_));
        int32_t* o = reinterpret_cast<int32_t*>(spread->mutable_data());
        const int32_t* src = dense->data_as<int32_t>();
        int64_t j = 0;
        o[0] = src[0];
        for (int64_t s = 0; s < slots; ++s) {
          if (bit_util::GetBit(valid, s)) ++j;
          o[s + 1] = src[j];
        }
        offsets = std::move(spread);
      }
      return Array::Make(node.field.type(), slots, {validity, offsets, data}, {}, nulls);
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr dense, b->values.Finish());
    if (nulls == 0) {
      values = dense;
    } else if (leaf.out_width == 0) {
      FLOE_ASSIGN_OR_RAISE(auto spread,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
      int64_t j = 0;
      for (int64_t s = 0; s < slots; ++s) {
        if (bit_util::GetBit(valid, s)) {
          if (bit_util::GetBit(dense->data(), j)) bit_util::SetBit(spread->mutable_data(), s);
          ++j;
        }
      }
      values = std::move(spread);
    } else {
      const int w = leaf.out_width;
      FLOE_ASSIGN_OR_RAISE(auto spread, Buffer::AllocateZeroed(slots * w, pool_));
      uint8_t* o = spread->mutable_data();
      const uint8_t* src = dense->data();
      for (int64_t s = 0; s < slots; ++s) {
        if (bit_util::GetBit(valid, s)) {
          std::memcpy(o + s * w, src, static_cast<size_t>(w));
          src += w;
        }
      }
      values = std::move(spread);
    }
    if (!values) {
      FLOE_ASSIGN_OR_RAISE(values, Buffer::AllocateZeroed(0, pool_));
    }
    return Array::Make(node.field.type(), slots, {validity, values}, {}, nulls);
  }

  const FileSchema& schema_;
  const std::vector<LeafBatch*>& batches_;
  MemoryPool* pool_;
};

}  // namespace

Result<ArrayPtr> AssembleFromLevels(const FileSchema& schema,
                                    const std::vector<LeafBatch*>& batches, MemoryPool* pool,
                                    const ReadNode& node) {
  return Assembler(schema, batches, pool).Assemble(node);
}

}  // namespace floe::parquet::internal
