package completion

// validate checks a tree that may not come from FromKong: every name the
// scripts splice unquoted into case patterns and function tables must be
// safe, and every enum word quotable.
func validate(c *Command, root bool) error {
	if c == nil {
		return nil
	}
	what := "command"
	if root {
		what = "program"
	}
	if err := checkName(what, c.Name); err != nil {
		return err
	}
	for _, a := range c.Aliases {
		if err := checkName("command alias", a); err != nil {
			return err
		}
	}
	for _, f := range c.Flags {
		if err := validateFlag(f); err != nil {
			return err
		}
	}
	for _, a := range c.Args {
		if err := validateValue(a.Value); err != nil {
			return err
		}
	}
	if err := validateValue(c.BranchArg); err != nil {
		return err
	}
	for _, child := range c.Commands {
		if err := validate(child, false); err != nil {
			return err
		}
	}
	return nil
}

func validateFlag(f Flag) error {
	if err := checkName("flag", f.Name); err != nil {
		return err
	}
	for _, a := range f.Aliases {
		if err := checkName("flag alias", a); err != nil {
			return err
		}
	}
	if f.Negation != "" {
		if err := checkName("negated flag", f.Negation); err != nil {
			return err
		}
	}
	if f.Short != 0 && !safeShort(f.Short) {
		return &NameError{What: "short flag", Name: string(f.Short)}
	}
	if f.Value != nil {
		return validateValue(*f.Value)
	}
	return nil
}

func validateValue(v Value) error {
	switch v.Kind {
	case KindNone, KindFile, KindDir, KindCommand, KindTool, "":
	case KindEnum:
		for _, w := range v.Enum {
			if err := checkWord(w); err != nil {
				return err
			}
		}
	default:
		return &TagError{Field: "value", Value: string(v.Kind)}
	}
	return nil
}
