# SPDX-License-Identifier: GPL-2.0
#
# kOFI: kernel OpenFabrics Interface.
#
#   make              build every module for KDIR (out of tree)
#   make install      install them into /lib/modules/$(KERNELRELEASE)/updates
#   make demo         two QEMU hosts, kOFI loaded, sample ULPs over each provider
#   make check        everything: build matrix, checkpatch, KUnit, VM tests
#   make kunit        the KUnit suites under kunit.py (sanitizers on)
#   make vmtest T=... one VM test on KERNEL=6.1|6.12|debug (GUESTS=1|2);
#                     G=... one group of tools/vm/tests.list, in one boot
#   make bench        benchmarks: each provider over its baseline (ratios)
#   make setup        install packages and fetch Debian's kernels (cached)
#
# The Kbuild file describes the modules; this file only drives builds.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(HOME)/.cache/kofi/kdir-6.1)
KERNEL ?= 6.1
GUESTS ?= 1

# An out-of-tree build has no .config entries for kOFI: select every module.
KOFI_CONFIG := CONFIG_KOFI=m CONFIG_KOFI_KSOCKET=m CONFIG_KOFI_RDS=m CONFIG_KOFI_IB_VERBS=m \
	       CONFIG_KOFI_KSTREAM=m CONFIG_KOFI_RXM=m CONFIG_KOFI_SAMPLES=m

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KOFI_CONFIG) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KOFI_CONFIG) INSTALL_MOD_DIR=updates \
		modules_install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KOFI_CONFIG) clean

setup:
	tools/setup.sh

check:
	tools/check.sh

kunit: setup
	tools/kunit.sh

debug-kernel: setup
	tools/debug-kernel.sh

vmtest: setup
	@test -n "$(T)$(G)" || { echo "usage: make vmtest T=TEST|G=GROUP [KERNEL=...] [GUESTS=...]"; exit 2; }
	$(if $(filter debug,$(KERNEL)),tools/debug-kernel.sh)
	tools/vm/run.sh -k $(KERNEL) $(if $(G),-g $(G),-n $(GUESTS) $(T))

demo: setup
	tools/vm/run.sh -k $(KERNEL) -n 2 -t 600 demo

# Benchmarks (not tests): every tools/vm/tests/*-bench.sh part, ratios to
# each provider's baseline of the same run (raw kernel TCP, raw verbs,
# raw RMA writes and rstream for kstream).
bench: setup
	tools/bench.sh -k $(KERNEL)

checkpatch: setup
	tools/checkpatch.sh

sparse: setup
	tools/build.sh -W -C 6.1
	tools/build.sh -W -C 6.12

.PHONY: all modules install clean setup check kunit debug-kernel vmtest demo \
	bench checkpatch sparse
