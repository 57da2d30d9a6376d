// json_agg, jsonb_agg, json_object_agg and jsonb_object_agg. The partial state of a group
// is the JSON text of its items so far, without the brackets ("1, 2" or "\"a\" : 1"), so
// partial states merge by joining them with the separator; the final phase adds the
// brackets (and normalizes, for jsonb).

#include <string>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/expr/json.h"
#include "floe/expr/json_internal.h"

namespace floe::expr::internal {

namespace {

class JsonAggAccumulator final : public GroupsAccumulator {
 public:
  JsonAggAccumulator(bool object, bool jsonb, TypePtr return_type, MemoryPool* pool)
      : object_(object), jsonb_(jsonb), return_type_(std::move(return_type)), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    const size_t want = object_ ? 2 : 1;
    if (args.size() != want) {
      return Status::Internal("{} takes {} arguments, got {}", Name(), want, args.size());
    }
    Resize(total_groups);
    const Array& values = *args[object_ ? 1 : 0];
    // PostgreSQL puts a line break before structured values after the first.
    const bool structured = !object_ && values.type()->is_nested();
    std::string item;
    for (int64_t i = 0; i < values.length(); ++i) {
      if (filter != nullptr && (filter->IsNull(i) || !filter->BoolValue(i))) continue;
      item.clear();
      if (object_) {
        if (args[0]->IsNull(i)) return Status::Invalid("field name must not be null");
        std::string key;
        FLOE_RETURN_NOT_OK(AppendJsonKeyText(*args[0], i, &key));
        AppendJsonString(key, &item);
        item.append(" : ");
      }
      FLOE_RETURN_NOT_OK(AppendValueAsJson(values, i, &item));
      Add(group_ids[i], item, structured);
    }
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    if (states.size() != 1) return Status::Internal("{} state of {} columns", Name(), states.size());
    Resize(total_groups);
    const Array& parts = *states[0];
    for (int64_t i = 0; i < parts.length(); ++i) {
      if (parts.IsNull(i)) continue;
      Add(group_ids[i], parts.BytesValue(i), false);
    }
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    BinaryBuilder builder(String(), pool_);
    for (size_t g = 0; g < bodies_.size(); ++g) {
      if (seen_[g]) {
        FLOE_RETURN_NOT_OK(builder.Append(bodies_[g]));
      } else {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      }
    }
    Reset();
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return std::vector<ArrayPtr>{std::move(out)};
  }

  Result<ArrayPtr> Evaluate() override {
    BinaryBuilder builder(return_type_, pool_);
    std::string text;
    for (size_t g = 0; g < bodies_.size(); ++g) {
      if (!seen_[g]) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      text.clear();
      text.append(object_ ? "{ " : "[");
      text.append(bodies_[g]);
      text.append(object_ ? " }" : "]");
      if (jsonb_) {
        FLOE_ASSIGN_OR_RAISE(JsonValue v, ParseJson(text, true));
        text = JsonbText(v);
      }
      FLOE_RETURN_NOT_OK(builder.Append(text));
    }
    Reset();
    return builder.Finish();
  }

  int64_t memory_size() const override {
    return bytes_ + static_cast<int64_t>(bodies_.capacity() * sizeof(std::string) + seen_.capacity());
  }

 private:
  std::string_view Name() const {
    if (object_) return jsonb_ ? "jsonb_object_agg" : "json_object_agg";
    return jsonb_ ? "jsonb_agg" : "json_agg";
  }

  void Resize(int64_t total_groups) {
    bodies_.resize(static_cast<size_t>(total_groups));
    seen_.resize(static_cast<size_t>(total_groups), 0);
  }

  void Add(uint32_t g, std::string_view item, bool structured) {
    std::string& body = bodies_[g];
    const size_t before = body.size();
    if (seen_[g]) body.append(structured ? ", \n " : ", ");
    seen_[g] = 1;
    body.append(item);
    bytes_ += static_cast<int64_t>(body.size() - before);
  }

  void Reset() {
    std::vector<std::string>().swap(bodies_);
    std::vector<uint8_t>().swap(seen_);
    bytes_ = 0;
  }

  bool object_;
  bool jsonb_;
  TypePtr return_type_;
  MemoryPool* pool_;
  std::vector<std::string> bodies_;
  std::vector<uint8_t> seen_;
  int64_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<GroupsAccumulator> MakeJsonAggAccumulator(bool object, bool jsonb,
                                                          const TypePtr& return_type,
                                                          MemoryPool* pool) {
  return std::make_unique<JsonAggAccumulator>(object, jsonb, return_type, pool);
}

}  // namespace floe::expr::internal
