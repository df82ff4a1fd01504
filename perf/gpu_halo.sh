#!/usr/bin/env bash
# perf/gpu_halo.sh OUT [PART...]: the halo exchange on GPUs (docs/performance.md#two-gpus), from the
# bundle's root (scripts/bundle-device.sh) on a machine with one or two GPUs. Parts, in the order
# of the figures' priority (the default runs them all):
#   tests   fvproxy_mpi_tests (cuda build) at 2 and 3 ranks on one shared GPU (CUDA IPC within one
#           device), at 2 ranks on two GPUs, and at 2 ranks with one GPU visible per rank (ipc
#           impossible: the staged fallback): the halo tests and whole Sod runs with every
#           transport bitwise equal to one rank (FVPROXY_GPU_TESTS_ALL=1: every distributed test;
#           FVPROXY_GPU_TESTS_FILTER=F: the gtest filter F, "*" for every MPI test)
#   tg      navier-stokes Taylor-Green 192^3 hexes: 1 GPU, 2 GPUs with each transport (the flow
#           models' default ghost layers: 2 since perf/results/2026-11-26-h200x2-layers; 1 before)
#   scalar  the default scalar case at 16.9M tets (112 x 112 x 224 hexes): the same
#   weak    8.45M tets (112^3): 1 GPU and 2 GPUs (weak scaling: 16.9M on 2 GPUs is `scalar`'s)
#   layers  parallel.halo.layers 1 vs 2 (docs/halo.md#two-ghost-layers), the default transport:
#           Taylor-Green 192^3 and the scalar case at 16.9M tets, 1 GPU and 2 GPUs with each count
#   layers-staged  the same two-GPU runs with the staged transport (not in the default list)
#   face-pass  the scalar 16.9M tets on 1 and 2 GPUs, operators.step separate and fused (issue 39;
#           not in the default list)
#   tg-face-pass  Taylor-Green 192^3 (navier-stokes) on 1 and 2 GPUs, operators.step separate and
#           fused (issue 39; not in the default list)
#   four    Taylor-Green 192^3 and the scalar 16.9M tets on 1, 2 and every GPU of a 4- or 8-GPU
#           machine, the default transport (not in the default list)
#   four-weak  weak scaling to every GPU: the scalar case at 8.45M tets per GPU (1 GPU 112^3 x 6,
#           2 GPUs [112,112,224] = `four`'s, 4 GPUs [112,224,224], 8 GPUs [224,224,224]) and
#           Taylor-Green at 192^3 hexes per GPU (1 GPU = `four`'s, then [192,192,384], [192,384,384],
#           [384,384,384]: the cells stretched, the work per GPU the same)
#   four-large  strong scaling of the big cases: the scalar 33.8M tets ([112,224,224]) on 1 GPU
#           (FOUR_LARGE_SCALAR_GPUS="1 2": also 2; every GPU: `four-weak`'s), Taylor-Green 256^3 on 1, 2
#           and every GPU (FOUR_LARGE_TG_GPUS picks; FOUR_WEAK_GPUS the GPU counts of `four-weak`)
#   four-mid  the mid meshes (scalar 1.08M tets [64,64,44] x 6, Taylor-Green 96^3 = 0.88M hexes) on 1, 2
#           and every GPU, the default transport (the small-mesh end of strong scaling)
#   four-staged  Taylor-Green 192^3 and the scalar 16.9M tets on every GPU through the staged transport
#           (host memory and MPI, as between nodes)
#   vertex  operators.muscl.stencil: vertex against face on 1 and 2 GPUs: Taylor-Green on 1.57M
#           jittered tets (not in the default list)
#   corners operators.muscl.stencil face, corners and vertex on 1 and 2 GPUs: Taylor-Green on 1.57M
#           jittered tets with slip walls on y and z (not in the default list; CORNERS_STENCILS picks
#           the stencils, CORNERS_STEPS the two run lengths, default 10 30)
#   bind    every GPU, scripts/gpu-bind.sh (each rank on the cores near its GPU) against unbound
#           ranks: Taylor-Green 192^3 and the scalar case at 1.08M tets ([64,64,44] x 6)
# Runs on several ranks go through scripts/gpu-bind.sh when FVPROXY_GPU_BIND=1.
# Each run is made twice, with two step counts, so that set-up and first-step costs cancel: the
# marginal time per step = (loop(long) - loop(short)) / (long - short). The figures, with the
# transport that ran and the device timeline's overlap, go to OUT/steps.csv (perf/gpu_halo.py
# tabulates them). FVPROXY_BIN picks the executable (default bin/fvproxy; the other Kokkos' build:
# bin/kokkos-3.4.01/fvproxy, scripts/bundle-device.sh --also; KOKKOS.txt says which is which).
set -u
out=$1
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(tests tg scalar weak layers)
mkdir -p "$out"
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
ngpu=$(nvidia-smi -L | wc -l)
gpu_machine_header "gpu_halo.sh ${parts[*]}" "${FVPROXY_BIN:-bin/fvproxy}" >"$out/machine-$(IFS=-; echo "${parts[*]}").txt" 2>&1
mpi=(mpirun --bind-to none -x OMP_NUM_THREADS=4 -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR -x OMPI_ALLOW_RUN_AS_ROOT
     -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM)
[[ -f $out/steps.csv ]] || echo "case,cells,gpus,transport_asked,transport,steps,loop_s,rate,gpu_overlap,wait_s_max,fallback" >"$out/steps.csv"

# one_gpu_per_rank: a wrapper that shows each rank only the GPU of its local rank
cat >"$out/one_gpu_per_rank.sh" <<'EOF'
#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK
exec "$@"
EOF
chmod +x "$out/one_gpu_per_rank.sh"

# gpu_counts: 1, 2 and every GPU of the machine, each once ("1", "1 2" or "1 2 N")
gpu_counts() {
  local c=(1)
  [[ $ngpu -ge 2 ]] && c+=(2)
  [[ $ngpu -gt 2 ]] && c+=("$ngpu")
  echo "${c[@]}"
}

# measure NAME CASE CELLS NP TRANSPORT STEPS SETS...: one run, a line of steps.csv
measure() {
  local name=$1 case=$2 cells=$3 np=$4 transport=$5 steps=$6
  shift 6
  local d=/tmp/gpu_halo_$name
  rm -rf "$d"
  local cmd=("${FVPROXY_BIN:-bin/fvproxy}" run "$case" --set "mesh.generate.cells=$cells" --set "parallel.halo.transport=$transport"
             "$@" --set 'output={}' --output-dir "$d")
  local bind=()
  [[ ${FVPROXY_GPU_BIND:-0} == 1 ]] && bind=(scripts/gpu-bind.sh)
  if [[ $np == 1 ]]; then
    gpu_step "$name" 300 "${cmd[@]}"
  else
    gpu_step "$name" 300 "${mpi[@]}" -np "$np" "${bind[@]}" "${cmd[@]}"
  fi
  ./run.sh python3 - "$d/summary.json" "$name" "$cells" "$np" "$transport" "$steps" >>"$out/steps.csv" <<'EOF'
import json, sys
path, name, cells, np, asked, steps = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception as e:
    print("%s,%s,%s,%s,failed,%s,,,,," % (name, cells.replace(",", " "), np, asked, steps)); sys.exit(0)
h = d.get("halo", {})
loop = d["wall_seconds"] - d.get("io_seconds", 0)
w = h.get("seconds_wait", {})
print("%s,%s,%s,%s,%s,%s,%.6f,%.6e,%s,%s,%s" % (name, cells.replace(",", " "), np, asked, h.get("transport", "-"), steps,
      loop, d["cell_updates_per_second"], h.get("gpu_overlap"), w.get("max", "") if isinstance(w, dict) else "",
      (h.get("transport_fallback") or "").replace(",", ";")))
EOF
  [[ -f $d/summary.json ]] && cp "$d/summary.json" "$out/$name.summary.json"
  tail -1 "$out/steps.csv"
}

# two_gpu_layers TRANSPORT TAG: Taylor-Green 192^3 and the scalar case at 16.9M tets on two GPUs with
# one and two ghost layers (run names layers_<case>_2<TAG>_L<layers>_<steps>)
two_gpu_layers() {
  local tr=$1 tag=$2 l s
  for l in 1 2; do
    for s in 10 40; do
      measure layers_tg_2${tag}_L${l}_$s inputs/taylor_green.yaml "[192,192,192]" 2 "$tr" $s \
        --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}" --set "parallel.halo.layers=$l"
    done
    for s in 20 80; do
      measure layers_scalar_2${tag}_L${l}_$s inputs/default.yaml "[112,112,224]" 2 "$tr" $s \
        --set "time={integrator: ssprk3, steps: $s}" --set "parallel.halo.layers=$l"
    done
  done
}

# face_pass_runs PREFIX CASE CELLS S1 S2 TIME: the separate operators and one face pass (operators.step)
# on 1 and 2 GPUs, the default transport, runs of S1 and S2 steps (TIME: more keys of `time`; run
# names <PREFIX><step>_<gpus>_<steps>)
face_pass_runs() {
  local prefix=$1 case=$2 cells=$3 s1=$4 s2=$5 time=$6 st n s
  for st in separate fused; do
    for n in 1 2; do
      [[ $n -le $ngpu ]] || continue
      for s in $s1 $s2; do
        measure "${prefix}${st}_${n}_$s" "$case" "$cells" "$n" auto "$s" \
          --set "time={integrator: ssprk3, steps: $s$time}" --set "operators.step=$st"
      done
    done
  done
}

for part in "${parts[@]}"; do
  case $part in
  tests)
    t=bin/fvproxy_mpi_tests
    f='--gtest_filter=Halo.*:DistributedRun.FlowRunsEqualOneRankPerGlobalId'
    [[ ${FVPROXY_GPU_TESTS_ALL:-0} == 1 ]] && f='--gtest_filter=Halo.*:DistributedRun.*:DistributedOperators.*'
    # FVPROXY_GPU_TESTS_FILTER: any gtest filter ('*': every MPI test, e.g. after a change to src/parallel/)
    [[ -n ${FVPROXY_GPU_TESTS_FILTER:-} ]] && f="--gtest_filter=$FVPROXY_GPU_TESTS_FILTER"
    # FVPROXY_TEST_IPC: whether the tests must find the ipc transport (1) or its staged fallback (0)
    gpu_step tests_np2_one_gpu 240 "${mpi[@]}" -np 2 -x CUDA_VISIBLE_DEVICES=0 -x FVPROXY_TEST_IPC=1 $t "$f"
    gpu_step tests_np3_one_gpu 240 "${mpi[@]}" -np 3 -x CUDA_VISIBLE_DEVICES=0 -x FVPROXY_TEST_IPC=1 $t "$f"
    if [[ $ngpu -ge 2 ]]; then
      gpu_step tests_np2_two_gpus 240 "${mpi[@]}" -np 2 -x FVPROXY_TEST_IPC=1 $t "$f"
      gpu_step tests_np3_two_gpus 240 "${mpi[@]}" -np 3 -x FVPROXY_TEST_IPC=1 $t "$f"
      gpu_step tests_np2_hidden_gpus 240 "${mpi[@]}" -np 2 -x FVPROXY_TEST_IPC=0 "$out/one_gpu_per_rank.sh" $t "$f"
    fi
    if [[ $ngpu -ge 4 ]]; then # ipc among every pair of four ranks, one per GPU
      gpu_step tests_np4_four_gpus 300 "${mpi[@]}" -np 4 -x FVPROXY_TEST_IPC=1 $t "$f"
    fi
    ;;
  tg)
    for s in 10 40; do
      measure tg_1_$s inputs/taylor_green.yaml "[192,192,192]" 1 auto $s --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
    done
    if [[ $ngpu -ge 2 ]]; then
      for tr in auto staged; do
        for s in 10 40; do
          measure tg_2_${tr}_$s inputs/taylor_green.yaml "[192,192,192]" 2 $tr $s \
            --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
        done
      done
    fi
    ;;
  scalar | weak)
    cells="[112,112,224]"
    [[ $part == weak ]] && cells="[112,112,112]"
    for s in 20 80; do
      measure ${part}_1_$s inputs/default.yaml "$cells" 1 auto $s --set "time={integrator: ssprk3, steps: $s}"
    done
    if [[ $ngpu -ge 2 ]]; then
      trs=(auto staged)
      [[ $part == weak ]] && trs=(auto)
      for tr in "${trs[@]}"; do
        for s in 20 80; do
          measure ${part}_2_${tr}_$s inputs/default.yaml "$cells" 2 $tr $s --set "time={integrator: ssprk3, steps: $s}"
        done
      done
    fi
    ;;
  face-pass) # issue 39: the scalar 16.9M tets: does the faster step still hide the halo?
    face_pass_runs step inputs/default.yaml "[112,112,224]" 20 80 ""
    ;;
  tg-face-pass) # issue 39: navier-stokes Taylor-Green 192^3, the convection and viscous operators
    face_pass_runs tgstep inputs/taylor_green.yaml "[192,192,192]" 10 40 ", dt: 0.0002"
    ;;
  vertex) # operators.muscl.stencil: vertex on 1 and 2 GPUs (ghost layers by vertex adjacency) against
    # the face stencil: Taylor-Green (navier-stokes) on 64^3 x 6 = 1.57M jittered periodic tets
    for st in face vertex; do
      for np in $(gpu_counts); do
        [[ $np -gt 2 ]] && continue
        for s in 10 30; do
          measure "vertex_${st}_${np}_$s" inputs/taylor_green.yaml "[64,64,64]" "$np" auto "$s" \
            --set mesh.generate.element=tet --set mesh.generate.perturb=0.15 --set operators.muscl.stencil=$st \
            --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
        done
      done
    done
    ;;
  corners) # operators.muscl.stencil face, corners and vertex on 1 and 2 GPUs: Taylor-Green (navier-stokes)
    # on 64^3 x 6 = 1.57M jittered tets, periodic in x, slip walls on y and z (symmetry planes of the
    # Taylor-Green flow at +-pi): corners adds the vertex entries at the cells along the four edges only
    for st in ${CORNERS_STENCILS:-face corners vertex}; do
      for np in $(gpu_counts); do
        [[ $np -gt 2 ]] && continue
        for s in ${CORNERS_STEPS:-10 30}; do
          measure "corners_${st}_${np}_$s" inputs/taylor_green.yaml "[64,64,64]" "$np" auto "$s" \
            --set mesh.generate.element=tet --set mesh.generate.perturb=0.15 --set "mesh.generate.periodic=[x]" \
            --set "boundary={ymin: {type: slip-wall}, ymax: {type: slip-wall}, zmin: {type: slip-wall}, zmax: {type: slip-wall}}" \
            --set operators.muscl.stencil=$st --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
        done
      done
    done
    ;;
  four) # strong scaling to every GPU of the machine (4 or 8): Taylor-Green 192^3 and the scalar 16.9M tets
    # on 1, 2 and all GPUs, one rank per GPU, the default transport (ipc among all pairs of ranks)
    # (FOUR_GPUS: the GPU counts; FOUR_TG_STEPS: Taylor-Green's two run lengths; FOUR_SCALAR=0: no scalar runs)
    for n in ${FOUR_GPUS:-$(gpu_counts)}; do
      [[ $n -le $ngpu ]] || continue
      for s in ${FOUR_TG_STEPS:-10 40}; do
        measure tg_${n}_$s inputs/taylor_green.yaml "[192,192,192]" "$n" auto $s \
          --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
      done
      [[ ${FOUR_SCALAR:-1} == 0 ]] && continue
      for s in 20 80; do
        measure scalar_${n}_$s inputs/default.yaml "[112,112,224]" "$n" auto $s --set "time={integrator: ssprk3, steps: $s}"
      done
    done
    ;;
  four-weak) # the same cells per GPU on 1, 2, 4 (8) GPUs; the one- and two-GPU points shared with `four`
    sc=("" "[112,112,112]" "[112,112,224]" "" "[112,224,224]" "" "" "" "[224,224,224]")
    tg=("" "" "[192,192,384]" "" "[192,384,384]" "" "" "" "[384,384,384]")
    for n in ${FOUR_WEAK_GPUS:-1 2 4 8}; do
      [[ $n -le $ngpu ]] || continue
      if [[ $n != 2 ]]; then
        for s in 20 80; do
          measure weak_scalar_${n}_$s inputs/default.yaml "${sc[$n]}" "$n" auto $s --set "time={integrator: ssprk3, steps: $s}"
        done
      fi
      if [[ $n != 1 ]]; then
        for s in 20 80; do
          measure weak_tg_${n}_$s inputs/taylor_green.yaml "${tg[$n]}" "$n" auto $s \
            --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
        done
      fi
    done
    ;;
  four-large) # 33.8M tets on 1 and 2 GPUs (every GPU: four-weak), Taylor-Green 256^3 on 1, 2, every GPU
    for n in ${FOUR_LARGE_SCALAR_GPUS:-1}; do
      for s in 20 80; do
        measure large_scalar_${n}_$s inputs/default.yaml "[112,224,224]" "$n" auto $s --set "time={integrator: ssprk3, steps: $s}"
      done
    done
    for n in ${FOUR_LARGE_TG_GPUS:-$(gpu_counts)}; do
      for s in 20 80; do
        measure large_tg_${n}_$s inputs/taylor_green.yaml "[256,256,256]" "$n" auto $s \
          --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
      done
    done
    ;;
  four-mid)
    for n in $(gpu_counts); do
      for s in 100 400; do
        measure mid_scalar_${n}_$s inputs/default.yaml "[64,64,44]" "$n" auto $s --set "time={integrator: ssprk3, steps: $s}"
      done
      for s in 40 160; do
        measure mid_tg_${n}_$s inputs/taylor_green.yaml "[96,96,96]" "$n" auto $s \
          --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
      done
    done
    ;;
  four-staged)
    for s in 20 80; do
      measure tg_${ngpu}_staged_$s inputs/taylor_green.yaml "[192,192,192]" "$ngpu" staged $s \
        --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
      measure scalar_${ngpu}_staged_$s inputs/default.yaml "[112,112,224]" "$ngpu" staged $s \
        --set "time={integrator: ssprk3, steps: $s}"
    done
    ;;
  bind) # every GPU, bound (scripts/gpu-bind.sh) and not, A B A B
    for ab in 0a 1a 0b 1b; do
      b=${ab:0:1}
      for s in 10 40; do
        FVPROXY_GPU_BIND=$b measure bind${ab}_tg_${ngpu}_$s inputs/taylor_green.yaml "[192,192,192]" "$ngpu" auto $s \
          --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
      done
      for s in 100 400; do
        FVPROXY_GPU_BIND=$b measure bind${ab}_scalar_${ngpu}_$s inputs/default.yaml "[64,64,44]" "$ngpu" auto $s \
          --set "time={integrator: ssprk3, steps: $s}"
      done
    done
    ;;
  layers-staged) # the same two-GPU runs through the staged transport (one GPU per rank, a network)
    [[ $ngpu -ge 2 ]] && two_gpu_layers staged _staged
    ;;
  layers)
    for s in 10 40; do
      measure layers_tg_1_$s inputs/taylor_green.yaml "[192,192,192]" 1 auto $s \
        --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}"
    done
    for s in 20 80; do
      measure layers_scalar_1_$s inputs/default.yaml "[112,112,224]" 1 auto $s --set "time={integrator: ssprk3, steps: $s}"
    done
    [[ $ngpu -ge 2 ]] && two_gpu_layers auto ""
    ;;
  *) echo "gpu_halo.sh: unknown part '$part' (tests | tg | scalar | weak | layers | layers-staged | face-pass | tg-face-pass | four | four-weak | four-large | four-mid | four-staged | bind)" >&2; exit 2 ;;
  esac
done
