package ui

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/themes"
)

// Run shows the UI on the terminal until the user quits or ctx ends. A
// generation still running when it returns is cancelled.
func Run(ctx context.Context, shift Shift, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	themes.Use(opts.Theme) // before any style renders: never query the terminal's background
	m := New(shift, opts)
	m.ctx = ctx
	_, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
