# Sourced by bench/exec.sh and bench/lint.sh: hyperfine in rounds.
#
#   hyperfine_rounds OUT ROUNDS RUNS WARMUP NAME_FLAG CMD NAME_FLAG CMD ...
#
# runs hyperfine ROUNDS times, RUNS runs of each command per round, and
# writes to OUT the merge of the rounds (bench/merge_rounds.py: each
# command's times from every round, their median, and its median per
# round). A slow minute on the machine then falls on every command alike
# instead of on whichever one hyperfine was running. Each round after the
# first runs the commands in its own shuffled order (seeded by the round
# number, so a run can be repeated), so no command always follows the
# same other one (what runs before can warm or cool caches for what
# follows); round 1 keeps the listed order, which is the report's. The
# commands come as hyperfine's (-n NAME CMD) triples.
hyperfine_rounds() {
  local out=$1 rounds=$2 runs=$3 warmup=$4
  shift 4
  local cmds=("$@") order dir r i
  dir=$(mktemp -d)
  for ((r = 1; r <= rounds; r++)); do
    echo "round $r of $rounds ($runs runs per command)" >&2
    order=("${cmds[@]}")
    if [ "$r" -gt 1 ]; then
      order=()
      for i in $(seq 0 3 $((${#cmds[@]} - 1)) | shuf --random-source=<(yes "$r")); do
        order+=("${cmds[@]:i:3}")
      done
    fi
    hyperfine -N --warmup "$warmup" --runs "$runs" --export-json "$dir/round$r.json" "${order[@]}" >/dev/null
  done
  python3 "$(dirname "${BASH_SOURCE[0]}")/merge_rounds.py" "$out" "$dir"/round*.json
  rm -rf "$dir"
}
