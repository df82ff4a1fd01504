#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=$((OMPI_COMM_WORLD_LOCAL_RANK % $(nvidia-smi -L | wc -l)))
exec "$@"
