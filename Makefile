# The README's two commands: `make run` (the default case) and `make test` (the test suite).
# Both install what is missing first (scripts/setup-deps.sh), then build the host preset.
SHELL := /bin/bash
PRESET ?= host
JOBS ?= $(shell nproc)

.PHONY: all build run test cuda cuda-float cuda-test-bundle bundle format format-check clean
all: build

build:
	@bash scripts/build.sh $(PRESET) --parallel $(JOBS)

# OpenMP thread binding as Kokkos recommends, unless the environment already sets one.
run: build
	OMP_PROC_BIND=$${OMP_PROC_BIND:-spread} OMP_PLACES=$${OMP_PLACES:-threads} \
	  ./build/$(PRESET)/fvproxy run inputs/default.yaml

test: build
	cd build/$(PRESET) && ctest --output-on-failure --no-tests=error -j $(JOBS)

# GPU build (CUDA 11.8 + Kokkos CUDA for sm_90; FVPROXY_CUDA_ARCH=AMPERE80 for A100).
cuda:
	@bash scripts/build.sh cuda --parallel $(JOBS)

# Single-precision GPU build of the benchmark harness (bundled as bin/fvproxy-float).
cuda-float:
	@bash scripts/build.sh cuda-float --parallel $(JOBS) --target fvproxy

# Self-contained folder for the GPU machine (build/bundle).
bundle: cuda
	@bash scripts/bundle-device.sh

format:
	@bash scripts/format.sh --fix

format-check:
	@bash scripts/format.sh --check

clean:
	rm -rf build
