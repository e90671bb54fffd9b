#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# rxm-fanin.sh over ksocket;net (libfabric's net wire): the fan-in of 64
# endpoints' tagged 64 KiB messages to one endpoint, and six crossing
# connects each ending with one connection, every message verified.
FPROV="ksocket;net"
PB=1000
. ./rxm-fanin.sh
