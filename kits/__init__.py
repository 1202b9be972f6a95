"""The vendor starter kits (``tablecert kit LANG --out DIR``): one folder per language, each a
protocol shell, the one interface a vendor implements, a skeleton, a worked example, build files
and a README. Data only: nothing here is imported as Python."""
