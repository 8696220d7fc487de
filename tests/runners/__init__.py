"""Runner tests: a package, so that its test_conformance.py and the sandbox suite's can both be collected."""
