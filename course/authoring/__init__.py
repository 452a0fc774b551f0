"""The authors' tools: what writes and keeps the course, never what a learner or a grader runs.

    build       `python -m course build`: labs/ from solutions/, each exercise's rules into both
    layout      the package's layers and each lab's whole code; `python -m course map` prints them
    mutants     `python -m course.authoring.mutants NN`: a mutation sweep, to find holes in the checks
    cells       write a solution notebook from Python (md, code, write), and execute it to store outputs

It stands a floor above course.grading: it reads the manifest and notebooks through grading's own
modules (manifest, notebooks, stubs) and runs checks through `run_check`; nothing below imports it.
"""
