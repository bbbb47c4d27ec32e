#!/bin/bash
# Calibration round 1 of the strength levels: anchors depth 1..8, random, depth 1 with temperatures, node budgets.
P=(alphabeta:depth=1 alphabeta:depth=2 alphabeta:depth=3 alphabeta:depth=4 alphabeta:depth=5 alphabeta:depth=6 alphabeta:depth=7 alphabeta:depth=8 random
   alphabeta:depth=1,temp=30 alphabeta:depth=1,temp=100 alphabeta:depth=1,temp=300 alphabeta:depth=1,temp=800
   alphabeta:nodes=300 alphabeta:nodes=1000 alphabeta:nodes=3000 alphabeta:nodes=10000 alphabeta:nodes=30000)
PAIRS=1-2,2-3,3-4,4-5,5-6,6-7,7-8,1-3,2-4,3-5,4-6,5-7,6-8,9-1,9-13,9-12,10-1,11-1,12-1,13-1,10-2,11-10,12-11,13-12,14-3,14-4,14-2,15-4,15-5,15-3,16-5,16-6,16-4,17-6,17-7,17-5,18-7,18-8,18-6,14-15,15-16,16-17,17-18
exec nice -n 10 ./jz tournament --players "${P[@]}" --pairings $PAIRS --games 40 --concurrency 2 --out-dir calib1
