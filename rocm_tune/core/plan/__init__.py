"""The plan: the planner's request (request.py, answers.py, questions.py), its search and explanations (planner.py,
search.py, explain.py, throughput.py), the typed Plan (plan.py) and its warning codes."""
