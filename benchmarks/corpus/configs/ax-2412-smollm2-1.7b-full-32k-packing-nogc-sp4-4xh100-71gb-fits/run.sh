# launch line not posted (filled in)
axolotl train config.yaml
