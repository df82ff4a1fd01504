# The README's two commands: `make run` (the default case) and `make test` (the test suite).
# Both install what is missing first (scripts/setup-deps.sh), then build the host preset.
# FVPROXY_KOKKOS_ARCHIVE=/path/to/kokkos-X.Y.Z.tar.gz make test: the same against that Kokkos
# release, built by the setup scripts, in build/host-kokkos-X.Y.Z (docs/development.md#another-kokkos).
SHELL := /bin/bash
PRESET ?= host
JOBS ?= $(shell nproc)
# Extra ctest arguments for `make test`, e.g. CTEST_ARGS="-LE long" (without the long numerical runs).
CTEST_ARGS ?=

.PHONY: all build run test cuda cuda-float cuda-test-bundle bundle format format-check clean
all: build

build:
	@bash scripts/build.sh $(PRESET) --parallel $(JOBS)

# OpenMP thread binding as Kokkos recommends, unless the environment already sets one.
run: build
	OMP_PROC_BIND=$${OMP_PROC_BIND:-spread} OMP_PLACES=$${OMP_PLACES:-threads} \
	  "./$$(bash scripts/build.sh --build-dir $(PRESET))/fvproxy" run inputs/default.yaml

test: build
	cd "$$(bash scripts/build.sh --build-dir $(PRESET))" && ctest --output-on-failure --no-tests=error -j $(JOBS) $(CTEST_ARGS)

# GPU build (CUDA 11.8 + Kokkos CUDA for sm_90; FVPROXY_CUDA_ARCH=AMPERE80 for A100).
cuda:
	@bash scripts/build.sh cuda --parallel $(JOBS)

# Single-precision GPU build of the benchmark harness (bundled as bin/fvproxy-float).
cuda-float:
	@bash scripts/build.sh cuda-float --parallel $(JOBS) --target fvproxy

# Self-contained folder for the GPU machine (build/bundle). With FVPROXY_KOKKOS_ARCHIVE set (Kokkos
# 4.6.01, docs/gpu.md#which-kokkos), bin/fvproxy and the GPU tests are that Kokkos' cuda build and
# Debian's Kokkos 3.4.01 build rides along in bin/kokkos-3.4.01/; without it, bin/fvproxy is the
# 3.4.01 build and the bundle says that it fell back (KOKKOS.txt, and on stderr).
bundle:
	@env -u FVPROXY_KOKKOS_ARCHIVE bash scripts/build.sh cuda --parallel $(JOBS)
ifneq ($(FVPROXY_KOKKOS_ARCHIVE),)
	@bash scripts/build.sh cuda --parallel $(JOBS)
	@bash scripts/bundle-device.sh --default "$$(bash scripts/build.sh --build-dir cuda)" \
	  --also "$$(env -u FVPROXY_KOKKOS_ARCHIVE bash scripts/build.sh --build-dir cuda)"
else
	@bash scripts/bundle-device.sh
endif

format:
	@bash scripts/format.sh --fix

format-check:
	@bash scripts/format.sh --check

clean:
	rm -rf build
