module example.com/kvlog

go 1.22
