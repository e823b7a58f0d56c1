import MemoCRDT
print("memo-bench")
