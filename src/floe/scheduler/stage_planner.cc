#include "floe/scheduler/stage_planner.h"

#include <algorithm>
#include <set>
#include <utility>

#include "floe/scheduler/shuffle_exec.h"

namespace floe::scheduler {

namespace {

constexpr std::string_view kRepartition = "RepartitionExec";
constexpr std::string_view kCoalesce = "CoalescePartitionsExec";
constexpr std::string_view kMerge = "SortPreservingMergeExec";
constexpr std::string_view kRecursive = "RecursiveQueryExec";

class Cutter {
 public:
  std::vector<Stage> stages;

  // Rewrites `node`'s subtree with its exchanges replaced by readers, adding a stage
  // for each one; `inputs` collects the stages the rewritten subtree reads.
  Result<exec::PlanPtr> Rewrite(const exec::PlanPtr& node, std::set<int>* inputs) {
    const std::string_view name = node->name();
    if (name == kRepartition || name == kCoalesce) {
      std::vector<exec::PlanPtr> children = node->children();
      if (children.size() != 1) return Status::Internal("{} without one input", name);
      exec::Partitioning output =
          name == kCoalesce ? exec::Partitioning::Single() : node->properties().partitioning;
      FLOE_ASSIGN_OR_RAISE(int stage, AddStage(children[0], output));
      inputs->insert(stage);
      return ShuffleReaderExec::Make(stage, node->schema(), output);
    }
    // A recursive query runs its terms again and again within its one task, reading the
    // work table it keeps in that task: no stage is cut inside it, and an exchange there
    // (a scan of several partitions under a join) runs within the task.
    if (name == kRecursive) return node;
    std::vector<exec::PlanPtr> children = node->children();
    if (children.empty()) return node;
    std::vector<exec::PlanPtr> rewritten;
    rewritten.reserve(children.size());
    bool changed = false;
    for (const exec::PlanPtr& child : children) {
      exec::PlanPtr out;
      if (name == kMerge && child->partition_count() > 1) {
        // The merge reads its input's partitions as they are, each in order.
        exec::Partitioning keep = exec::Partitioning::Unknown(child->partition_count());
        FLOE_ASSIGN_OR_RAISE(int stage, AddStage(child, keep));
        inputs->insert(stage);
        FLOE_ASSIGN_OR_RAISE(
            out, ShuffleReaderExec::Make(stage, child->schema(), child->properties().partitioning,
                                         child->properties().ordering));
      } else {
        FLOE_ASSIGN_OR_RAISE(out, Rewrite(child, inputs));
      }
      changed = changed || out != child;
      rewritten.push_back(std::move(out));
    }
    if (!changed) return node;
    return node->WithNewChildren(std::move(rewritten));
  }

  // Makes the stage that runs `input` and writes it partitioned by `output`; its id. An
  // input the plan holds in two places (one node planned for both) with the same output
  // partitioning is one stage, whose output both consumers read.
  Result<int> AddStage(const exec::PlanPtr& input, exec::Partitioning output) {
    for (const Made& made : made_) {
      if (made.input == input && SameOutput(made.output, output)) return made.stage;
    }
    std::set<int> inputs;
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr fragment, Rewrite(input, &inputs));
    Stage stage;
    stage.id = static_cast<int>(stages.size()) + 1;
    FLOE_ASSIGN_OR_RAISE(stage.plan, ShuffleWriterExec::Make(fragment, stage.id, output));
    stage.inputs.assign(inputs.begin(), inputs.end());
    stages.push_back(std::move(stage));
    made_.push_back(Made{input, std::move(output), stages.back().id});
    return stages.back().id;
  }

 private:
  struct Made {
    exec::PlanPtr input;
    exec::Partitioning output;
    int stage = 0;
  };

  static bool SameOutput(const exec::Partitioning& a, const exec::Partitioning& b) {
    if (a.kind() != b.kind() || a.partition_count() != b.partition_count()) return false;
    return a.kind() != exec::Partitioning::Kind::kHash ||
           exec::PartitioningSatisfies(a, exec::Distribution::Hash(b.exprs()));
  }

  std::vector<Made> made_;
};

}  // namespace

Result<StagePlan> PlanStages(const exec::PlanPtr& plan) {
  if (!plan) return Status::Internal("PlanStages: no plan");
  Cutter cutter;
  std::set<int> inputs;
  FLOE_ASSIGN_OR_RAISE(exec::PlanPtr root, cutter.Rewrite(plan, &inputs));
  Stage final_stage;
  final_stage.id = static_cast<int>(cutter.stages.size()) + 1;
  final_stage.plan = std::move(root);
  final_stage.inputs.assign(inputs.begin(), inputs.end());
  cutter.stages.push_back(std::move(final_stage));
  StagePlan out;
  out.stages_ = std::move(cutter.stages);
  return out;
}

std::string StagePlan::ToString() const {
  std::string out;
  for (const Stage& stage : stages_) {
    out += "Stage " + std::to_string(stage.id);
    if (&stage == &stages_.back()) out += " (final)";
    const int tasks = stage.partition_count();
    out += ", " + std::to_string(tasks) + (tasks == 1 ? " task" : " tasks");
    out += ", inputs: ";
    if (stage.inputs.empty()) {
      out += "none";
    } else {
      for (size_t i = 0; i < stage.inputs.size(); ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(stage.inputs[i]);
      }
    }
    out += "\n";
    std::string tree = exec::PlanToString(*stage.plan);
    // Indent the stage's tree by two spaces under its header.
    size_t start = 0;
    while (start < tree.size()) {
      size_t end = tree.find('\n', start);
      if (end == std::string::npos) end = tree.size();
      out += "  " + tree.substr(start, end - start) + "\n";
      start = end + 1;
    }
  }
  return out;
}

Result<StagePlan> StagePlan::Rewrite(
    const std::function<Result<exec::PlanPtr>(const exec::PlanPtr&)>& rewrite) const {
  StagePlan out = *this;
  for (Stage& stage : out.stages_) {
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr plan, rewrite(stage.plan));
    if (!plan->schema()->Equals(*stage.plan->schema()) ||
        plan->partition_count() != stage.plan->partition_count()) {
      return Status::Internal("rewriting stage {} changed its schema or partitions", stage.id);
    }
    stage.plan = std::move(plan);
  }
  return out;
}

}  // namespace floe::scheduler
