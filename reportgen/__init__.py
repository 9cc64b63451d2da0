"""reportgen: validate, merge, chart, render and verify the TVM study site."""
