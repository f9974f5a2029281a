#!/usr/bin/env bash
# Sets up the machine and runs gpuplan on the seed's first job: ResNet-18 on
# CIFAR-10, 50 epochs at batch 128 (until the desktop app lands, the CLI is the app).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo build --locked --release -p gpuplan-cli
./target/release/gpuplan estimate --model resnet18 --resolution 32 --classes 10 --batch 128 \
  --dataset-samples 50000 --epochs 50 --gpu rtx3090 "$@"
