#pragma once

// Codecs of values that several of exec's node codecs share (a fetch, a join type, a
// resolved aggregate). Private to exec's node files; defined in plan_codec.cc.

#include <cstdint>
#include <optional>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/common/result.h"
#include "floe/expr/function_registry.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec::internal {

/// The optional `fetch` of a node's message: nullopt when absent.
template <typename Message>
std::optional<int64_t> DecodeFetch(const Message& message) {
  if (!message.has_fetch()) return std::nullopt;
  return message.fetch().value();
}

/// kInternal for a join type that has no codec.
Result<codec::proto::JoinType> EncodeJoinType(plan::JoinType type);
/// kCorrupt naming the node for an unknown join type.
Result<plan::JoinType> DecodeJoinType(const codec::PlanDecoder& in, codec::proto::JoinType type);

/// kInternal when the aggregate has no return type.
Status EncodeAggregateFunction(const expr::ResolvedAggregate& f,
                               codec::proto::ResolvedAggregate* out);
/// Resolves the aggregate again from its name, argument types and DISTINCT, and checks that
/// it still returns what the sender resolved; kCorrupt naming the node otherwise.
Result<expr::ResolvedAggregate> DecodeAggregateFunction(
    const codec::PlanDecoder& in, const codec::proto::ResolvedAggregate& message);

}  // namespace floe::exec::internal
