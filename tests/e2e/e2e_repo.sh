#!/bin/sh
# e2e_repo.sh — end-to-end runs of the RePo commands: gen-repo (task corpora,
# deterministic by seed), train-lm --positions repo and --init (continued
# pre-training of a RoPE checkpoint), repo-eval (training tiny models per
# method, or taking checkpoints, and the accuracy CSV and figure data),
# repo-positions (z over a repeated sentence), and one clear error per bad
# input. Models here are tiny so that the suite also runs under ASan.
# Usage: sh tests/e2e/e2e_repo.sh path/to/seqrep
# Ends with the line "N passed, N failed"; exits non-zero if anything failed.
set -u
. "$(dirname "$0")/e2e-lib.sh"
e2e_begin "$@"
export OMP_NUM_THREADS=1
ignore_fontconfig_leaks  # the RePo figures draw text

tiny="--layers 2 --d-model 16 --heads 2 --d-ff 32 --batch 4 --threads 1 --quiet"

# ---- gen-repo: a corpus of task examples, the same for the same seed ----
expect_ok "gen-repo kv" "$seqrep" gen-repo --task kv --length 40 --pairs 4 --n 200 --out kv.txt --answers kv.csv
check "200 lines" test "$(wc -l <kv.txt)" = 200
check "every line has 39 tokens and its answer" test "$(awk '{print NF}' kv.txt | sort -u)" = 40
check "every line ends with its query and answer" test "$(grep -Ec '\? k[0-9]+ = v[0-9]+$' kv.txt)" = 200
check "answers CSV has a header and 200 rows" test "$(wc -l <kv.csv)" = 201
check "answers CSV says where" grep -q "^index,answer_pos,answer,evidence_start,evidence_len,depth$" kv.csv
# the answer of example 0 is the value after its evidence key
line=$(head -1 kv.txt)
start=$(sed -n 2p kv.csv | cut -d, -f4)
answer=$(sed -n 2p kv.csv | cut -d, -f3)
check "the evidence holds the answer" test "$(echo "<bos> $line" | awk -v s="$start" '{print $(s + 3)}')" = "$answer"
check "the line ends with the answer" test "$(echo "$line" | awk '{print $NF}')" = "$answer"
expect_ok "gen-repo again" "$seqrep" gen-repo --task kv --length 40 --pairs 4 --n 200 --out kv2.txt
check "same seed, same corpus" cmp -s kv.txt kv2.txt
expect_ok "gen-repo another seed" "$seqrep" gen-repo --task kv --length 40 --pairs 4 --n 200 --out kv3.txt --seed 2
check "another seed, another corpus" test "$(cmp -s kv.txt kv3.txt; echo $?)" = 1
expect_ok "gen-repo needle at depth 0" "$seqrep" gen-repo --task needle --length 30 --n 5 --depth 0 --out n.txt
check "the needle opens the haystack" test "$(grep -Ec '^k[0-9]+ = v[0-9]+ ;' n.txt)" = 5
expect_ok "gen-repo table" "$seqrep" gen-repo --task table --length 60 --n 5 --out t.txt
check "the table has its header" test "$(grep -c '| c0 c1 c2 ;' t.txt)" = 5

# ---- train-lm with positions; continued pre-training ----
expect_ok "train-lm rope on kv" "$seqrep" train-lm --corpus kv.txt --out rope.st --seq-len 40 --steps 12 $tiny
expect_ok "train-lm repo on kv" "$seqrep" train-lm --corpus kv.txt --out repo.st --seq-len 40 --steps 12 --positions repo $tiny
expect_ok "info on the RePo model" "$seqrep" info repo.st
check "manifest records positions repo and repo_from 1" sh -c 'grep -q "positions *repo" out.txt && grep -q "repo_from *1" out.txt'
expect_ok "train-lm nope" "$seqrep" train-lm --corpus kv.txt --out nope.st --seq-len 40 --steps 4 --positions nope $tiny
expect_ok "train-lm const" "$seqrep" train-lm --corpus kv.txt --out const.st --seq-len 40 --steps 4 --positions const $tiny
expect_ok "train-lm hybrid" "$seqrep" train-lm --corpus kv.txt --out hybrid.st --seq-len 40 --steps 4 --positions hybrid $tiny
check "the checkpoint runs its layers as trained: rope, none" sh -c '"$0" info hybrid.st | grep -q "^positions    rope none (layers 0..1)"' "$seqrep"
check "a NoPE checkpoint rotates nothing" sh -c '"$0" info nope.st | grep -q "^positions    none none "' "$seqrep"
expect_ok "continue the RoPE model as RePo" "$seqrep" train-lm --init rope.st --corpus kv.txt --out cont.st --seq-len 40 --steps 8 --positions repo --repo-from 0 --batch 4 --threads 1 --quiet
expect_ok "info on the continued model" "$seqrep" info cont.st
check "manifest names the init checkpoint" sh -c 'grep -q "init *rope.st" out.txt && grep -q "repo_from *0" out.txt'
check "vocabulary of the init checkpoint kept" test "$("$seqrep" info cont.st | grep '^vocabulary')" = "$("$seqrep" info rope.st | grep '^vocabulary')"

# ---- repo-eval on checkpoints ----
expect_ok "repo-eval on checkpoints" "$seqrep" repo-eval --task kv --pairs 4 --models rope=rope.st,repo=cont.st --lengths 40,60 --depths 0,1 --examples 6 --eval-batch 3 --threads 1 --out ckpt.csv --quiet
check "checkpoint CSV: header and 2 x 2 x 2 rows" test "$(wc -l <ckpt.csv)" = 9
check "checkpoint CSV header" grep -q "^task,method,train_length,length,depth,n,correct,accuracy$" ckpt.csv
check "checkpoint CSV rows" test "$(grep -c '^kv,repo,40,60,1,6,' ckpt.csv)" = 1
check "manifest beside the CSV" grep -q '"checkpoint":.*"cont.st"' ckpt.manifest.json
check "summary table on stdout" grep -q "^repo " out.txt

# ---- repo-eval training tiny models here, with figure data ----
expect_ok "repo-eval trains and measures" "$seqrep" repo-eval --task kv --pairs 4 --queries 2 --methods rope,const,nope,repo --steps 15 --layers 2 --d-model 16 --heads 2 --d-ff 32 --batch 4 --train-length 40 --lengths 40,80 --depths 0,0.5,1 --examples 6 --eval-batch 3 --figure-examples 3 --threads 1 --quiet --out acc.csv --figures figs --save-dir models
check "accuracy CSV: header and 4 x 2 x 3 rows" test "$(wc -l <acc.csv)" = 25
check "accuracies are fractions of the examples" sh -c 'tail -n +2 acc.csv | awk -F, "\$7 > \$6 || \$8 < 0 || \$8 > 1 { bad = 1 } END { exit bad }"'
check "const and nope are the same model" test "$(grep ',const,' acc.csv | cut -d, -f3-)" = "$(grep ',nope,' acc.csv | cut -d, -f3-)"
check "attention data: 4 methods x 2 layers x 2 lengths" test "$(tail -n +2 figs/kv-attention.csv | wc -l)" = 16
check "range data: RePo layer 1 at 2 lengths" test "$(tail -n +2 figs/kv-range.csv | cut -d, -f2,3,4 | tr '\n' ' ')" = "repo,1,40 repo,1,80 "
check "z data: 2 heads x 80 tokens" test "$(tail -n +2 figs/kv-z.csv | wc -l)" = 160
check "saved models" test -f models/kv-repo.safetensors -a -f models/kv-rope.safetensors
expect_ok "repo-eval on a saved model" "$seqrep" repo-eval --task kv --pairs 4 --models repo=models/kv-repo.safetensors --lengths 40 --depths 0.5 --examples 6 --eval-batch 3 --threads 1 --out again.csv --quiet
check "the saved model scores as it did when trained" test "$(grep '^kv,repo,40,40,0.5,' acc.csv)" = "$(sed -n 2p again.csv)"

# ---- repo-positions: z over a repeated sentence ----
expect_ok "repo-positions over 3 copies" "$seqrep" repo-positions --model repo.st --text "k1 = v2 ; k3 = v4 ;" --r 2 --out z.csv --summary zs.csv --threads 1
check "z CSV: 1 RePo layer x 2 heads x 3 x (<bos> + 8) tokens" test "$(tail -n +2 z.csv | wc -l)" = 54
check "z CSV knows copies and words" grep -q "^1,0,14,k3,1,4," z.csv
check "summary: the index reference and 2 heads" test "$(tail -n +2 zs.csv | cut -d, -f1-3 | tr '\n' ' ')" = "index,-1,-1 repo,1,0 repo,1,1 "
check "the index puts copies 9 apart" grep -q "^index,-1,-1,12,13.5,9,7.6974,1.55897,9,7,0$" zs.csv
expect_ok "repo-positions on a task example" "$seqrep" repo-positions --model repo.st --task kv --length 40 --out zt.csv --threads 1

# ---- the RePo figures ----
expect_ok "plot repo-z from the z CSV" "$seqrep" plot repo-z --results z.csv --layer 1 --head 1 --out pz.png
expect_ok "plot repo-z from the model" "$seqrep" plot repo-z --model repo.st --text "k1 = v2 ; k3 = v4 ;" --r 2 --layer 1 --head 1 --out mz.svg
check "the model's z equals repo-positions' z" test "$(tail -n +2 pz.csv)" = "$(tail -n +2 mz.csv)"
check "manifest names the sentence and r" sh -c 'grep -q "\"sentence\":.*k1 = v2" mz.manifest.json && grep -q "\"r\":	2" mz.manifest.json'
expect_ok "plot repo-repeat" "$seqrep" plot repo-repeat --results z.csv --layer 1 --head 0 --out rep.pdf
check "repo-repeat numbers: 27 tokens" test "$(tail -n +2 rep.csv | wc -l)" = 27
expect_ok "plot repo-range" "$seqrep" plot repo-range --results figs/kv-range.csv --out range.png
check "range numbers: layer 1 at 40 and 80" test "$(tail -n +2 range.csv | cut -d, -f1,2 | tr '\n' ' ')" = "1,40 1,80 "
expect_ok "plot repo-needle" "$seqrep" plot repo-needle --results figs/kv-attention.csv --length 40 --out needle.png
check "needle numbers: 4 methods x 2 layers" test "$(tail -n +2 needle.csv | wc -l)" = 8
check "every figure wrote PNG/SVG/PDF bytes" sh -c 'head -c 4 pz.png | grep -q PNG && head -c 5 mz.svg | grep -q "<?xml" && head -c 5 rep.pdf | grep -q "%PDF"'
expect_error "repo-z of a RoPE model" "no RePo weights" "$seqrep" plot repo-z --model rope.st --text "k1 = v2" --out x.png
expect_error "repo-z of a RoPE layer" "layer 0 has no learned positions (RePo layers 1..1)" "$seqrep" plot repo-z --model repo.st --text "k1 = v2" --layer 0 --out x.png
expect_error "repo-z has no mean head" "head number for repo-z" "$seqrep" plot repo-z --results z.csv --head mean --out x.png
expect_error "repo-z: CSV and model" "not both" "$seqrep" plot repo-z --results z.csv --model repo.st --out x.png
expect_error "repo-repeat of one copy" "give --r 1 or more" "$seqrep" plot repo-repeat --model repo.st --text "k1 = v2" --r 0 --out x.png
expect_error "repo-needle at a length not measured" "no rows at length 50" "$seqrep" plot repo-needle --results figs/kv-attention.csv --length 50 --out x.png
expect_error "repo-range without results" "needs --results" "$seqrep" plot repo-range --out x.png

# ---- bad inputs: one line, exit 2 ----
expect_error "repo-from beyond the layers" "repo-from 2 is outside 0..1" "$seqrep" train-lm --corpus kv.txt --out x.st --positions repo --repo-from 2 $tiny
expect_error "negative repo-from" "repo-from -3 is outside 0..1" "$seqrep" train-lm --corpus kv.txt --out x.st --positions repo --repo-from -3 $tiny
expect_error "repo-from without repo" "needs --positions repo" "$seqrep" train-lm --corpus kv.txt --out x.st --repo-from 1 $tiny
expect_error "unknown positions" "positions must be" "$seqrep" train-lm --corpus kv.txt --out x.st --positions alibi $tiny
expect_error "size with --init" "layers comes from --init" "$seqrep" train-lm --init rope.st --corpus kv.txt --out x.st --layers 3
expect_error "repo-from beyond the init's layers" "repo-from 5 is outside 0..1" "$seqrep" train-lm --init rope.st --corpus kv.txt --out x.st --seq-len 40 --positions repo --repo-from 5 --quiet
echo "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z" >other.txt
expect_error "corpus foreign to the init vocabulary" "shares no word" "$seqrep" train-lm --init rope.st --corpus other.txt --out x.st --seq-len 8 --quiet
expect_error "init that is not a checkpoint" "kv.txt" "$seqrep" train-lm --init kv.txt --corpus kv.txt --out x.st --quiet
expect_error "RePo asked of a RoPE checkpoint (eval)" "rope.st has no RePo weights" "$seqrep" repo-eval --task kv --models repo=rope.st --out x.csv --quiet
expect_error "RePo asked of a RoPE checkpoint (positions)" "rope.st has no RePo weights" "$seqrep" repo-positions --model rope.st --text "k1 = v2" --out x.csv
expect_error "task too short" "kv length 10 is too short for 4 pairs" "$seqrep" repo-eval --task kv --lengths 10 --out x.csv
expect_error "task too long" "too long: at most 4096 tokens" "$seqrep" repo-eval --task needle --lengths 64,5000 --out x.csv
expect_error "training length too short" "training examples" "$seqrep" repo-eval --task table --train-length 30 --out x.csv
expect_error "unknown task" "task must be kv, needle or table" "$seqrep" repo-eval --task sort --out x.csv
expect_error "unknown method" "unknown method 'alibi'" "$seqrep" repo-eval --task kv --methods rope,alibi --out x.csv
expect_error "repo-eval repo-from" "repo-from 4 is outside 0..3" "$seqrep" repo-eval --task kv --repo-from 4 --out x.csv
expect_error "bad depth" "depths" "$seqrep" repo-eval --task kv --depths 0,1.5 --out x.csv
expect_error "methods and models" "not both" "$seqrep" repo-eval --task kv --methods rope --models rope=rope.st --out x.csv
expect_error "gen-repo too short" "needle length 5 is too short" "$seqrep" gen-repo --task needle --length 5 --out x.txt
expect_error "gen-repo needle with 2 queries" "exactly 1 query" "$seqrep" gen-repo --task needle --queries 2 --out x.txt
expect_error "repo-positions needs one input" "exactly one of --text and --task" "$seqrep" repo-positions --model repo.st --out x.csv
check "no output left by failures" test ! -e x.csv -a ! -e x.st -a ! -e x.txt

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
