#pragma once

// The engine's plan codec registry: exec's nodes and expressions and every built-in
// connector's (DESIGN.md section 4). Plans that leave the process are encoded and decoded
// with it: the codec_roundtrip setting, and the stages dist/ sends to other ranks.

#include "floe/exec/plan_codec.h"

namespace floe::session {

/// Made once, on first use.
const exec::PlanCodecRegistry& EnginePlanCodecs();

}  // namespace floe::session
