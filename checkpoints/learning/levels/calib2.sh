#!/bin/bash
P=(alphabeta:depth=1 alphabeta:depth=2 alphabeta:depth=3 alphabeta:depth=4 alphabeta:depth=5
   alphabeta:depth=1,temp=5 alphabeta:depth=1,temp=10 alphabeta:depth=1,temp=20 alphabeta:nodes=100 alphabeta:nodes=1000 alphabeta:depth=1,temp=30)
PAIRS=6-1,6-2,7-1,7-6,8-1,8-7,8-11,11-1,9-1,9-2,9-3,10-3,10-4,10-5,1-2,2-3,3-4,4-5
exec nice -n 10 ./jz tournament --players "${P[@]}" --pairings $PAIRS --games 40 --concurrency 2 --seed 2 --out-dir calib2
