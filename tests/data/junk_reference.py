# A "reference" that prints no JSON (tests/cli: bench --reference says so).
print("hello junk")
