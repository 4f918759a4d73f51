"""Family generators for ../generate.py; each module has one gen_<family>() -> Family."""
