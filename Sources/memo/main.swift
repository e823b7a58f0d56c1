// The memo command line (in progress).
print("memo")
