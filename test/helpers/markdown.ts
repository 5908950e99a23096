/** What the docs tests read of a Markdown page. */

/** Markdown without its fenced code blocks, whose lines are neither links, headings nor tables. */
export const unfenced = (text: string): string => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
