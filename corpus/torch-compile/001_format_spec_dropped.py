# id: torch-compile-001
# construct: format_spec
# modes: original,compiled
# expect: diverged
# reason: open: stdout line 1: original "00000101"; compiled "5"
# target: torch-compile
# version: PyTorch 2.15.0+cu132 (torch.compile, backend eager)
# about: format(n, "08b") inside a compiled function returns str(n): the format spec is dropped
# origin: issue 35's prototype probe, written small by hand; the generator's builtin_forms row prints it
# status: open
# torch-issue: related, closed: pytorch/pytorch#144830 (format(int, spec) crashed); its fix #144956 reads the value as the format string, which returns str(n): not reported as wrong output

def f(n):
    return format(n, "08b")


print(f(5))
